#!/usr/bin/env bash
# Session 13, run F (nvidia-h200, ~5 min): every GPU test at this commit (the weight-streaming
# kernel's verification among them), after the launch contract learned the sm90_skinny family.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 400 python3 -m pytest -q -p no:cacheprovider tests/gpu -m gpu > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | head -12 | cut -c1-250
return_new_cache
