#!/usr/bin/env bash
# Session 15, run B (nvidia-h200, ~1 min on the warm machine of run A): square.8192's pair twice,
# to see whether run A's 1603 -> 1490 us with per-warp stores was the epilogue or the clocks.
source scripts/device/prelude.sh >/dev/null
for i in 1 2; do
  timeout 200 python3 -m bench.gemm_pairs --warp-stores --only square.8192 --out $OUT/sq8192_$i.json > $OUT/sq_$i.log 2>&1
  echo "rc=$?"; grep "µs" $OUT/sq_$i.log | cut -c1-150
done
