#!/usr/bin/env bash
# What is left to run on GPUs (written at the end of session 6). Session 6 measured the suite
# through parallel split-K and the pipeline-depth term (session6_f.sh: geomean 0.987), the launch
# overhead with the operand guard, and every GPU test. What a next session should measure once
# its code lands:
#  1. the fused-epilogue cost through the new ranking (`kiln bench gemm --only bert-base.ffn1 --twins`:
#     +12.8% before it);
#  2. square.1024 / bert-base.attn_out (0.87 / 0.92): one-wave grids where the same tile as cuBLAS's
#     runs ~15-20% slower; profile the prologue/epilogue before another search change;
#  3. the conv suite once the C = 64 3x3 layers and the stem get kernel work.
# Recipe (sessions 5-6): compile on the CPU host or on the GPU host's 16 cores, carry the cache as
# .devcarry/cache.txz, and source scripts/device/prelude.sh; on nvidia-h200, ~5 min:
set -u
source scripts/device/prelude.sh
timeout 240 python3 -m service.cli.main compile --file .devcarry/gemm_problems.json --arch sm_90a --limit 16 --jobs 16 \
  > $OUT/compile.log 2>&1; echo "compile rc=$?"
tar cJf $OUT/cache.txz -C .fleet-data --exclude=compile-cache/pch --exclude=compile-cache/locks compile-cache
timeout 300 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 1 --out $OUT/gemm.json > $OUT/gemm.log 2>&1
echo "gemm rc=$?"; grep -v '^{' $OUT/gemm.log | tail -24 | cut -c1-150
