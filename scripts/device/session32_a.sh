#!/usr/bin/env bash
# Session 32, run A (~3 min, any sm_90 card): the three weight-read floors after session 32's fixes.
# (1) Every floor kernel was compiled without launch bounds, so ptxas gave it 32 registers and held
# ~6 loads in flight whatever its unroll: the linear floor, tile-floor's Little's-law curve and
# intake-floor were all register-bound. Now each one-CTA-per-SM geometry carries
# __launch_bounds__(threads, CTAs per SM) and its register count goes into the result.
# (2) intake-floor keeps the same weight loads in flight in every variant and launches a row block's
# token tiles together. Session 32's first runs (H100, unfixed) are *_h100_20261206_session32_a.json.
set -u
source scripts/device/prelude.sh > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 150 python3 -m bench.stream_floor --out $OUT/floor.json > /tmp/floor.log 2>&1
echo "floor rc=$?"; tail -6 /tmp/floor.log | cut -c1-250
timeout 200 python3 -m bench.intake_floor --out $OUT/intake_floor.json > /tmp/intake.log 2>&1
echo "intake floor rc=$?"; cut -c1-400 /tmp/intake.log | tail -24
timeout 300 python3 -m bench.tile_order_floor --out $OUT/tile_floor.json > /tmp/tile_floor.log 2>&1
echo "tile floor rc=$?"; cut -c1-330 /tmp/tile_floor.log | tail -30
