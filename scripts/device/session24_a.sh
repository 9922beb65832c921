#!/usr/bin/env bash
# Session 24, run A (nvidia-h200, ~4 min): the single-consumer schedule (Schedule.single, CUTLASS's
# non-persistent KernelTmaWarpSpecialized) beside the persistent winners of the five one-tile-per-CTA
# suite grids (scripts/device/session24_a.py; two turns, each twin verified first).
set -u
source scripts/device/prelude.sh
timeout 300 python3 scripts/device/session24_a.py $OUT/single.json > $OUT/single.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/single.log | cut -c1-160 | tail -40
return_new_cache
