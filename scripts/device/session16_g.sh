#!/usr/bin/env bash
# Session 16, run G (nvidia-h200, ~3 min): see session16_g.py.
set -u
source scripts/device/prelude.sh
timeout 300 python3 scripts/device/session16_g.py $OUT/qkv_schedules.json > $OUT/g.log 2>&1
echo "rc=$?"; grep -E "µs" $OUT/g.log | cut -c1-150
