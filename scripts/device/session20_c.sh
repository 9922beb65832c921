#!/usr/bin/env bash
# Session 20, run C (nvidia-h200, ~5 min): every GPU test at this commit (kernels compiled on the CPU
# host where the carried cache has them, the rest here).
set -u
source scripts/device/prelude.sh
all_gpu_tests 240 240
return_new_cache
