#!/usr/bin/env bash
# Session 30, run C (nvidia-h200, ~6 min): the decode winners beside their register-epilogue twins
# (one more pipeline stage: scripts/device/session30_c.py), run A's two-CTAs-per-SM twins and
# session 28's prefetch pairs on the H200 (session 29 and run A got H100s), then session 29's run C
# (`kiln bench tile-floor`, `kiln bench floor`). Compile first on the CPU host:
# compile_twins.py session30_c session30_a session28_b, then prepare_carry.sh.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
for run in session30_c session30_a session28_b; do
  timeout 200 python3 scripts/device/$run.py $OUT/${run}_pairs.json > $OUT/$run.log 2>&1
  echo "$run pairs rc=$?"; grep -v '^{' $OUT/$run.log | cut -c1-150 | tail -40
done
timeout 300 python3 -m bench.tile_order_floor --out $OUT/tile_floor.json > $OUT/tile_floor.log 2>&1
echo "tile floor rc=$?"; cut -c1-330 $OUT/tile_floor.log | tail -30
timeout 150 python3 -m bench.stream_floor --out $OUT/floor.json > $OUT/floor.log 2>&1
echo "floor rc=$?"; tail -4 $OUT/floor.log | cut -c1-250
return_new_cache
