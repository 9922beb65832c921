#!/usr/bin/env bash
# Session 17, run B (nvidia-h200, ~9 min): every GPU test at this commit (cluster split-K's six
# included). Compiles on the GPU host's 16 cores what the carried cache (run A's cluster split-K
# kernels) lacks.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 300 python3 scripts/device/prefill_gpu_tests.py > $OUT/prefill.log 2>&1
echo "prefill rc=$? ok=$(grep -c '^ok' $OUT/prefill.log)"; grep -E "^FAIL|Error" $OUT/prefill.log | head -5 | cut -c1-200
timeout 250 python3 -m pytest -q -p no:cacheprovider -rA tests/gpu -m gpu > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | head -16 | cut -c1-250
