#!/usr/bin/env bash
# Session 39, run A (~3 min): session 38 run A again, after the verifier's tail test learned the odd-width
# tiles' K step (gpu_bench.tail_cuts): decode.m64's 88-row twins beside the 96-row winner
# (scripts/device/session38_a.py, each verified first), then the odd-width GPU tests. Compile first on the
# CPU host (compile_twins.py session38_a, plus the GPU tests' odd-width cubins), then prepare_carry.sh.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
pairs_script session38_a 150
gpu_tests_matching "odd_width" 100
