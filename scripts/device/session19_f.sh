#!/usr/bin/env bash
# Session 19, run F (nvidia-h200, ~2 min): scripts/device/session19_f.py, bert-base.ffn1's fusion cost on
# the swapped 128x192 tile under both clusters, two turns.
set -u
source scripts/device/prelude.sh
timeout 150 python3 scripts/device/session19_f.py $OUT/ffn1_fusion.json > $OUT/ffn1_fusion.log 2>&1
echo "rc=$?"; grep -v '^{' $OUT/ffn1_fusion.log | cut -c1-140 | tail -12
