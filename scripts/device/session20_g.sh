#!/usr/bin/env bash
# Session 20, run G (nvidia-h200, ~1 min): the swapped per-warp-store kernels under every epilogue the
# space now gives them (bias, GELU, SiLU; and none), before they enter the search.
set -u
source scripts/device/prelude.sh
timeout 120 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_tuning.py -m gpu -k "warp_store" \
  > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | tail -6 | cut -c1-200
