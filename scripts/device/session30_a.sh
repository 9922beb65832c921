#!/usr/bin/env bash
# Session 30, run A (nvidia-h200, ~8 min): two CTAs per SM on the decode shapes
# (scripts/device/session30_a.py: 230-256-CTA grids of half-width tiles at fixed stage counts beside
# each winner, two interleaved turns, each twin verified), then session 28's prefetch pairs
# (scripts/device/session28_b.py), which session 29 could run on an H100 only.
# Compile first on the CPU host: compile_twins.py session30_a session28_b, then prepare_carry.sh.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 270 python3 scripts/device/session30_a.py $OUT/occupancy_pairs.json > $OUT/occupancy.log 2>&1
echo "occupancy pairs rc=$?"; grep -v '^{' $OUT/occupancy.log | cut -c1-170 | tail -30
timeout 250 python3 scripts/device/session28_b.py $OUT/prefetch_pairs.json > $OUT/prefetch.log 2>&1
echo "prefetch pairs rc=$?"; grep -v '^{' $OUT/prefetch.log | cut -c1-170 | tail -40
return_new_cache
