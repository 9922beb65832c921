#!/usr/bin/env bash
# Session 26, run F (nvidia-h200, ~2 min): run C's single-consumer winners at TMA L2 promotions 0,
# 128 and 256 (scripts/device/session26_f.py; two turns, each verified first).
set -u
source scripts/device/prelude.sh
timeout 400 python3 scripts/device/session26_f.py $OUT/l2.json > $OUT/l2.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/l2.log | cut -c1-160 | tail -50
return_new_cache
