#!/usr/bin/env bash
# Session 8, run F (nvidia-h200, the last ~100 s of the session's device time): the timing-stability
# test alone, first thing on a just-started GPU, with the first settle of a process now 8-20 s and a
# 2 s window of agreeing rounds (runs D and E failed it cold: 328/346 and 326/341 µs).
# Not run in session 8: too little device time was left to start a machine. Run it first next time.
set -u
source scripts/device/prelude.sh
timeout 70 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_tuning.py -m gpu -k timed_twice > $OUT/stability.log 2>&1
echo "stability rc=$?"; grep -E "passed|failed|^E  " $OUT/stability.log | head -4 | cut -c1-200
