#!/usr/bin/env bash
# Session 31, run A (nvidia-h200, ~3 min): session 30's run E (`kiln bench intake-floor`, never run:
# is decode.m128's 0.85 of the linear read its per-SM intake?) and, on the same card, `kiln bench
# tile-floor` and `kiln bench floor`, the first GPU runs of 092bec5's one ReadKernel for every
# weight-read floor. Needs no cubins: each floor compiles its own read kernels with NVRTC.
set -u
source scripts/device/prelude.sh > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
timeout 200 python3 -m bench.intake_floor --out $OUT/intake_floor.json > $OUT/intake.log 2>&1
echo "intake floor rc=$?"; cut -c1-400 $OUT/intake.log | tail -24
timeout 300 python3 -m bench.tile_order_floor --out $OUT/tile_floor.json > $OUT/tile_floor.log 2>&1
echo "tile floor rc=$?"; cut -c1-330 $OUT/tile_floor.log | tail -30
timeout 150 python3 -m bench.stream_floor --out $OUT/floor.json > $OUT/floor.log 2>&1
echo "floor rc=$?"; tail -6 $OUT/floor.log | cut -c1-250
