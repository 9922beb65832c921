#!/usr/bin/env bash
# Session 14, run G (nvidia-h200, ~4 min): every GPU test at the review commit (one launch-config
# builder for the GEMM and parallel split-K's dependent reduction).
set -u
source scripts/device/prelude.sh
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/gpu -m gpu > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | head -12 | cut -c1-250
