#!/usr/bin/env bash
# Session 6, run H (nvidia-h200, ~2 min): every GPU test again once each plan settles the GPU's
# clocks before timing (run G's cold start timed one kernel 4% apart in two rounds).
set -u
source scripts/device/prelude.sh
timeout 150 python3 scripts/device/prefill_gpu_tests.py > $OUT/prefill.log 2>&1; echo "prefill rc=$?"
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/gpu -m gpu > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; tail -3 $OUT/gpu_tests.log
