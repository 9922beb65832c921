#!/usr/bin/env bash
# Session 22, run B (nvidia-h200, ~5 min): scripts/device/session22_b.py, cuBLAS's own decode kernels
# (nvjet 96x64 4x1 on decode.m64, 64x16 2x1 split-K on decode.m16) rebuilt as Kiln configs and timed
# beside the session 20 winners, two turns.
set -u
source scripts/device/prelude.sh
timeout 400 python3 scripts/device/session22_b.py $OUT/decode_nvjet.json > $OUT/decode_nvjet.log 2>&1
echo "decode rc=$?"; grep -v '^{' $OUT/decode_nvjet.log | cut -c1-150 | tail -40
return_new_cache
