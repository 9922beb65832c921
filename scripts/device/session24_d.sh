#!/usr/bin/env bash
# Session 24, run D (nvidia-h200, ~3 min): one consumer warpgroup against two in a non-persistent
# kernel on the one-round grids, and the single kernel's clusters on square.1024
# (scripts/device/session24_d.py; two turns, each twin verified first).
set -u
source scripts/device/prelude.sh
timeout 300 python3 scripts/device/session24_d.py $OUT/consumers.json > $OUT/consumers.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/consumers.log | cut -c1-160 | tail -24
return_new_cache
