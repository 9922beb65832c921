#!/usr/bin/env bash
# Session 17, run B (nvidia-h200, ~9 min): every GPU test at this commit (cluster split-K's six
# included). Compiles on the GPU host's 16 cores what the carried cache (run A's cluster split-K
# kernels) lacks.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
all_gpu_tests 300 250
