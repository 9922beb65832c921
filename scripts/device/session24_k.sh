#!/usr/bin/env bash
# Session 24, run K (nvidia-h200, ~3 min): every GPU test (tests/gpu, -m gpu) at the session's last
# commit, after the review's refactors of prune and the GPU tests' helpers.
set -u
source scripts/device/prelude.sh
all_gpu_tests 240 330
cp $OUT/gpu_tests.log $OUT/gpu_tests_h200_session24_k.log
return_new_cache
