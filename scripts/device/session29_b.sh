#!/usr/bin/env bash
# Session 29, run B (~7 min): every GPU test (the carried cache holds what
# scripts/device/prefill_gpu_tests.py compiles), after session 28's GPU code (the L2-prefetching
# mainloop, `kiln bench profile`'s weight read) and before the next search.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
all_gpu_tests 120 420
return_new_cache
