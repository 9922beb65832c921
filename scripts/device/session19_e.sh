#!/usr/bin/env bash
# Session 19, run E (nvidia-h200, ~4 min): `kiln bench gemm --only decode.m16 --limit 16 --warm 1`, the
# search after the cost model's surcharge on 2.x kernels on wgmma hardware (its stored winner, the
# swapped 64x32x128 persistent kernel, is back in its selection); cold: compiled on this host.
set -u
source scripts/device/prelude.sh
timeout 400 python3 -m bench.gemm_suite --suite .devcarry/suite.json --only decode.m16 --limit 16 --warm 1 \
  --out $OUT/gemm_m16_search.json > $OUT/search.log 2>&1
echo "search rc=$?"; grep -v '^{' $OUT/search.log | tail -4 | cut -c1-150
