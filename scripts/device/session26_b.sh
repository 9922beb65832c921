#!/usr/bin/env bash
# Session 26, run B (nvidia-h200, ~8 min): every GPU test (tests/gpu, -m gpu) after the
# self-clearing stream-K scheduler and the single-consumer per-warp stores, compiling on the GPU
# host first what the carried cache lacks (scripts/device/prefill_gpu_tests.py).
set -u
source scripts/device/prelude.sh
all_gpu_tests 270 290
cp $OUT/gpu_tests.log $OUT/gpu_tests_h200_session26_b.log
