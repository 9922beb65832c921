#!/usr/bin/env bash
# Session 28, run A (nvidia-h200, ~6 min): is decode.m128's swapped 64x64x64 winner bound by what it
# delivers into the SMs (361 MB over the L2-to-SM fabric) or by shared memory? Nsight Compute's full
# set on the three decode winners and three decode.m128 alternatives beside cuBLAS
# (scripts/device/session28_a_profile.json), then scripts/device/session28_a.py's timed pairs
# (128x128 tiles with K split four ways: half the bytes into the SMs; two turns).
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 200 python3 scripts/device/session28_a.py $OUT/pairs.json > $OUT/pairs.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/pairs.log | cut -c1-170 | tail -30
ncu_profile scripts/device/session28_a_profile.json 300
return_new_cache
