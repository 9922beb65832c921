#!/usr/bin/env bash
# Session 42, run A (~6 min): nvjet's "coopB" tiles as Kiln's cooperative kernel with its consumer
# warpgroups side by side along N (KernelConfig.wg_split_n): their GPU tests, then each winner beside
# its split-N twins and cuBLAS (scripts/device/session42_a.py; each verified first). Compile first on
# the CPU host: compile_twins.py session42_a (18 cubins, 12 of them split-N, ~8 min on 2 cores), then prepare_carry.sh.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
gpu_tests_matching "split_n" 150
pairs_script session42_a 380
return_new_cache
