#!/usr/bin/env bash
# Session 44, run B (~4 min): the 192x256 split-N tile's GPU tests (bias + GELU on tails, 2x1 on
# tails), then the suite shapes whose grids it fills beside their winners and cuBLAS
# (scripts/device/session44_b.py). Compile first on the CPU host: compile_twins.py session44_b,
# then prepare_carry.sh.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
gpu_tests_matching "split_n and 192x256" 150
pairs_script session44_b 330
return_new_cache
