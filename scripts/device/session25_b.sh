#!/usr/bin/env bash
# Session 25, run B (nvidia-h200, ~3 min): four session 24 winners and the library over K (and N for
# llama7b.o_proj's tile): fixed cost against per-K rate (scripts/device/session25_b.py).
set -u
source scripts/device/prelude.sh
timeout 400 python3 scripts/device/session25_b.py $OUT/sweep.json > $OUT/sweep.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/sweep.log | cut -c1-160 | grep "#2" | tail -40
return_new_cache
