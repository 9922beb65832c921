#!/usr/bin/env bash
# Session 24, run E (nvidia-h200, ~3 min): two single-consumer CTAs per SM on the mid-size grids of
# more than one round (scripts/device/session24_e.py: co-resident CTAs first, then two turns).
set -u
source scripts/device/prelude.sh
timeout 200 python3 scripts/device/session24_e.py --occupancy > $OUT/occupancy.log 2>&1
echo "occupancy rc=$?"; grep -E "^occupancy|Error" $OUT/occupancy.log | cut -c1-200
timeout 300 python3 scripts/device/session24_e.py $OUT/two_per_sm.json > $OUT/two_per_sm.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/two_per_sm.log | cut -c1-160 | tail -34
return_new_cache
