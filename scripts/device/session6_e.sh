#!/usr/bin/env bash
# Session 6, run E (nvidia-h200, ~5 min): one-wave shapes with each tile at a 64- and a 128-deep K
# tile (`kiln bench pairs --ktile`; the tk=64 kernels compiled on the CPU host and carried), then
# bert-base.ffn1 with and without its bias+GELU (`--twins`: the fused epilogue's cost).
set -u
source scripts/device/prelude.sh
timeout 300 python3 -m bench.gemm_pairs --ktile --out $OUT/pairs_ktile.json > $OUT/pairs_ktile.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/pairs_ktile.log | cut -c1-130 | sort -k1,1 -k4,4n | head -80
timeout 200 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 0 --only bert-base.ffn1 --twins \
  --out $OUT/gemm_ffn1_twins.json > $OUT/gemm_ffn1_twins.log 2>&1
echo "twins rc=$?"; grep -v '^{' $OUT/gemm_ffn1_twins.log | tail -6 | cut -c1-150
