#!/usr/bin/env bash
# Session 24, run J (nvidia-h200, ~2 min): 2 and 3 wgmma batches in flight (KernelConfig.mma_in_flight)
# beside the compute-bound winners at 0.98-0.99
# (scripts/device/session24_j.py; two turns, each twin verified first).
set -u
source scripts/device/prelude.sh
timeout 300 python3 scripts/device/session24_j.py $OUT/in_flight.json > $OUT/in_flight.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/in_flight.log | cut -c1-160 | tail -24
return_new_cache
