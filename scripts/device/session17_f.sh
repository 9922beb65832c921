#!/usr/bin/env bash
# Session 17, run F (nvidia-h200, ~3 min): decode.m128's activation re-reads (scripts/device/session17_f.py).
set -u
source scripts/device/prelude.sh
timeout 240 python3 scripts/device/session17_f.py $OUT/m128_wide.json > $OUT/f.log 2>&1
echo "f rc=$?"; grep -E "µs|Error|error" $OUT/f.log | cut -c1-170
