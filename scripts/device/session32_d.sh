#!/usr/bin/env bash
# Next session's first run (nvidia-h200, ~5 min): every session 32 run got an H100, so this repeats
# them on an H200 in one start: decode.m128's winner beside its 128x64 cluster split-K twins
# (session32_c.py), the three weight-read floors at 74c50e1+ (launch bounds, equal weight depth,
# the 128-row two-slice intake), then the end-to-end transcript (scripts/device/e2e.py). Compile
# first on the CPU host: KILN_DATA_DIR=$PWD/.fleet-data .venv/bin/python
# scripts/device/compile_twins.py session32_c, then prepare_carry.sh.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 scripts/device/session32_c.py $OUT/session32_c_pairs.json > $OUT/session32_c.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/session32_c.log | cut -c1-200 | tail -14
timeout 100 python3 -m bench.intake_floor --out $OUT/intake_floor.json > /tmp/intake.log 2>&1
echo "intake floor rc=$?"; cut -c1-700 /tmp/intake.log | tail -4
timeout 150 python3 -m bench.stream_floor --out $OUT/floor.json > /tmp/floor.log 2>&1
echo "floor rc=$?"; tail -3 /tmp/floor.log | cut -c1-250
timeout 200 python3 -m bench.tile_order_floor --out $OUT/tile_floor.json > /tmp/tile_floor.log 2>&1
echo "tile floor rc=$?"; grep -E "^decode|rowmajor 1 CTA" /tmp/tile_floor.log | cut -c1-250
timeout 240 python3 scripts/device/e2e.py > /tmp/e2e.log 2>&1
echo "e2e rc=$?"; tail -4 /tmp/e2e.log | cut -c1-300
return_new_cache
