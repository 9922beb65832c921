#!/usr/bin/env bash
# Session 25, run C (nvidia-h200, ~2 min): the single-consumer winners with 2 and 3 wgmma batches in flight
# (scripts/device/session25_c.py; two turns, each twin verified first).
set -u
source scripts/device/prelude.sh
timeout 400 python3 scripts/device/session25_c.py $OUT/in_flight.json > $OUT/in_flight.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/in_flight.log | cut -c1-160 | tail -50
return_new_cache
