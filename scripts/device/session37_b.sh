#!/usr/bin/env bash
# Session 37, run B (~3 min): seven compute-bound winners beside their 32-deep k-tile twins (twice the
# stages in the same shared memory; scripts/device/session37_b.py). Compile first on the CPU host:
# compile_twins.py session37_b, then prepare_carry.sh.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 400 python3 scripts/device/session37_b.py $OUT/session37_b_pairs.json > $OUT/session37_b.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/session37_b.log | cut -c1-160 | tail -30
