#!/usr/bin/env bash
# Session 7, run F (nvidia-h200, warm, ~2 min): every GPU test again once plans settle until two
# timed rounds agree within 1% (run E's timing-stability failure: 349 vs 334 µs after 0.5 s busy).
set -u
source scripts/device/prelude.sh
timeout 150 python3 scripts/device/prefill_gpu_tests.py > $OUT/prefill.log 2>&1; echo "prefill rc=$?"; grep FAIL $OUT/prefill.log | head
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/gpu -m gpu > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; tail -3 $OUT/gpu_tests.log | cut -c1-300
