#!/usr/bin/env bash
# Session 26, run D (nvidia-h200, ~4 min): why square.1024's single-consumer kernels starve for data
# (session 25 run N: 52-69% of mma cycles waiting) and why a 1x2 multicast slows them where nvjet's
# 128x64_64x8_1x2 gains. Nsight Compute's full set on the 64x128 1x1 winner, the 128x64 1x1 and the
# 128x64 under 1x2 (scripts/device/session26_d_square.json), each beside cuBLAS (`kiln bench profile`);
# the raw page comes back.
set -u
source scripts/device/prelude.sh
ncu_profile scripts/device/session26_d_square.json 400
