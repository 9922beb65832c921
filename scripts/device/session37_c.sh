#!/usr/bin/env bash
# Session 37, run C (~2 min): cluster split-K with interleaved K slices (KernelConfig.split_k_interleave)
# beside the contiguous slices and the decode.m128 / decode.m16 winners (scripts/device/session37_c.py),
# after the interleaved kernel's GPU test. Compile first on the CPU host: compile_twins.py
# session37_c, then prepare_carry.sh.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
gpu_tests_matching "interleaved" 120
pairs_script session37_c 300
