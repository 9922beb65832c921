#!/usr/bin/env bash
# Session 39, run C (~6 min): the suite replay at main (`kiln bench gemm --replay`: each stored winner
# verified and re-timed beside the library) on whichever card comes: on an H200 session 26 run C's
# winners (the standing H200 figures, last replayed at ddb3658 in session 30 run D), on an H100
# session 33 run B's. Checks that sessions 31-39's template changes moved no winner. Compile first on
# the CPU host: compile_twins.py on both result files, then prepare_carry.sh.
set -u
source scripts/device/prelude.sh
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$GPU"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
if echo "$GPU" | grep -q H200; then
  suite_replay bench/results/gemm_h200_20261204_session26_c_search.json 450
else
  suite_replay bench/results/gemm_h100_20261206_session33_b_search.json 450
fi
