#!/usr/bin/env bash
# Session 38, run B (~4 min): run A cut to what the device budget left covers: decode.m64's 88-row
# twins with B in one TMA box a stage beside the winner (scripts/device/session38_a.py, each twin
# verified first), then the odd-width GPU tests. Compile and carry as for run A.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
pairs_script session38_a 130
gpu_tests_matching "odd_width" 100
