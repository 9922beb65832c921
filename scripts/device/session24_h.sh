#!/usr/bin/env bash
# Session 24, run H (nvidia-h200, ~2 min): the client runtime's GPU tests (tests/gpu/test_torch_runtime.py),
# with the single-consumer kernels launched from their contracts through both launch paths.
set -u
source scripts/device/prelude.sh
timeout 300 python3 -m pytest -q -p no:cacheprovider -rA tests/gpu/test_torch_runtime.py -m gpu > $OUT/runtime_tests.log 2>&1
echo "runtime gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/runtime_tests.log | tail -12 | cut -c1-250
cp $OUT/runtime_tests.log $OUT/gpu_tests_h200_session24_h_runtime.log
return_new_cache
