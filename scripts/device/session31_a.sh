#!/usr/bin/env bash
# Session 31, run A (nvidia-h200, ~6 min; session 31 itself had no device time, so it is the next
# session's first run): session 30's run E (`kiln bench intake-floor`, never run: is decode.m128's
# 0.85 of the linear read its per-SM intake?) and, on the same card, `kiln bench tile-floor` and
# `kiln bench floor`, the first GPU runs of 092bec5's one ReadKernel for every weight-read floor;
# then the end-to-end transcript again (scripts/device/e2e.py: serve, a worker tunes a bias_gelu
# GEMM, a client launches the cubin) after 1ad098d's API error and timestamp changes. The floors
# need no cubins (each compiles its own read kernels with NVRTC); e2e compiles its 4 candidates there.
set -u
source scripts/device/prelude.sh > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
timeout 200 python3 -m bench.intake_floor --out $OUT/intake_floor.json > /tmp/intake.log 2>&1
echo "intake floor rc=$?"; cut -c1-400 /tmp/intake.log | tail -24
timeout 300 python3 -m bench.tile_order_floor --out $OUT/tile_floor.json > /tmp/tile_floor.log 2>&1
echo "tile floor rc=$?"; cut -c1-330 /tmp/tile_floor.log | tail -30
timeout 150 python3 -m bench.stream_floor --out $OUT/floor.json > /tmp/floor.log 2>&1
echo "floor rc=$?"; tail -6 /tmp/floor.log | cut -c1-250
timeout 300 python3 scripts/device/e2e.py > /tmp/e2e.log 2>&1
echo "e2e rc=$?"; tail -12 /tmp/e2e.log | cut -c1-300
