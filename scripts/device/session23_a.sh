#!/usr/bin/env bash
# Session 23, run A (nvidia-h200, ~6 min): decode.m16 past its 4x1 winner (scripts/device/session23_a.py:
# a 256-deep K tile, 8x1 clusters; two turns), then the three decode shapes searched with each K depth
# of the weight-tile pair in its own group (prune.k_depth_matters_for).
set -u
source scripts/device/prelude.sh
timeout 240 python3 scripts/device/session23_a.py $OUT/decode_m16.json > $OUT/decode_m16.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/decode_m16.log | cut -c1-150 | tail -24
suite_search "decode.m16 decode.m64 decode.m128" 240
return_new_cache
