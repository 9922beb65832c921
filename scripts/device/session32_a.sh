#!/usr/bin/env bash
# Session 32, run A (~2 min, any sm_90 card): `kiln bench intake-floor` again after its fix (every
# variant keeps the same weight loads in flight; a row block's token tiles launch together, sharing
# the weight through L2 as the winner's cluster shares it through multicast) with `kiln bench
# tile-floor` in the same run as the plain-read baseline. Session 32's first run of the unfixed
# floor (H100) is intake_floor_h100_20261206_session32_a.json.
set -u
source scripts/device/prelude.sh > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 python3 -m bench.intake_floor --out $OUT/intake_floor.json > /tmp/intake.log 2>&1
echo "intake floor rc=$?"; cut -c1-400 /tmp/intake.log | tail -24
timeout 300 python3 -m bench.tile_order_floor --out $OUT/tile_floor.json > /tmp/tile_floor.log 2>&1
echo "tile floor rc=$?"; grep -E "^decode|64 KB|blocked  1 CTA" /tmp/tile_floor.log | cut -c1-300
