#!/usr/bin/env bash
# Session 25, run L (nvidia-h200, ~1 min): cuBLAS's kernels along run B's K sweep (scripts/device/session25_l.py).
set -u
source scripts/device/prelude.sh
timeout 200 python3 scripts/device/session25_l.py $OUT/cublas_kernels.json > $OUT/cublas_kernels.log 2>&1
echo "rc=$?"; cut -c1-200 $OUT/cublas_kernels.log | tail -24
