#!/usr/bin/env bash
# Session 22, run C (nvidia-h200, ~4 min): scripts/device/session22_c.py, decode.m128 under cuBLAS's
# cluster along the tokens (weight-tile multicast) beside the session 20 winner, two turns.
set -u
source scripts/device/prelude.sh
timeout 400 python3 scripts/device/session22_c.py $OUT/decode_m128.json > $OUT/decode_m128.log 2>&1
echo "decode rc=$?"; grep -v '^{' $OUT/decode_m128.log | cut -c1-150 | tail -40
return_new_cache
