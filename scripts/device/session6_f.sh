#!/usr/bin/env bash
# Session 6, run F (nvidia-h200, ~5 min): the whole GEMM suite again once the ranking charges
# 3-stage pipelines (128x128 tiles now lead with a 64-deep K tile: `kiln bench pairs --ktile`);
# the new variants compile here on 16 cores, the rest come from runs C-E's cache.
set -u
source scripts/device/prelude.sh
timeout 240 python3 -m service.cli.main compile --file .devcarry/gemm_problems.json --arch sm_90a --limit 16 --jobs 16 \
  > $OUT/compile.log 2>&1; echo "compile rc=$?"; tail -2 $OUT/compile.log
timeout 300 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 1 --out $OUT/gemm.json > $OUT/gemm.log 2>&1
echo "gemm rc=$?"; grep -v '^{' $OUT/gemm.log | tail -24 | cut -c1-150
