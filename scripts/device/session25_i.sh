#!/usr/bin/env bash
# Session 25, run I (nvidia-h200, ~6 min): every GPU test (tests/gpu, -m gpu) at the session's last
# kernel commit, the phase clock's among them, with run H's compiles carried.
set -u
source scripts/device/prelude.sh
all_gpu_tests 200 380
cp $OUT/gpu_tests.log $OUT/gpu_tests_h200_session25_i.log
return_new_cache
