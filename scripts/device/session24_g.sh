#!/usr/bin/env bash
# Session 24, run G (nvidia-h200, ~3 min): decode.m16 around its single-consumer winner, and
# bert-base.attn_out's swapped single kernel without a cluster
# (scripts/device/session24_g.py; two turns, each twin verified first).
set -u
source scripts/device/prelude.sh
timeout 300 python3 scripts/device/session24_g.py $OUT/decode_m16.json > $OUT/decode_m16.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/decode_m16.log | cut -c1-160 | tail -24
return_new_cache
