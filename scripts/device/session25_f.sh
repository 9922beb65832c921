#!/usr/bin/env bash
# Session 25, run F (nvidia-h200, ~2 min): the last epilogue: store-path twins of six winners
# (scripts/device/session25_f.py; two turns, each twin verified first).
set -u
source scripts/device/prelude.sh
timeout 400 python3 scripts/device/session25_f.py $OUT/stores.json > $OUT/stores.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/stores.log | cut -c1-160 | tail -50
return_new_cache
