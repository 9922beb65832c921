#!/usr/bin/env bash
# Session 24, run C (nvidia-h200, ~8 min): every GPU test (tests/gpu, -m gpu), the single-consumer
# kernels' among them, after compiling on the GPU host what the carried cache lacks.
set -u
source scripts/device/prelude.sh
all_gpu_tests 240 330
cp $OUT/gpu_tests.log $OUT/gpu_tests_h200_session24_c.log
return_new_cache
