#!/usr/bin/env bash
# Session 37, run A (~2 min): the odd-width (88-row) tiles' GPU tests, then decode.m64's 88-row
# twins (126 CTAs where the winner's 96 rows make 115) and decode.m16's plain 64x32 twins (128 CTAs)
# beside their winners and cuBLAS (scripts/device/session37_a.py).
# Compile first on the CPU host: compile_twins.py session37_a, then prepare_carry.sh.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
gpu_tests_matching "88 or plain_64x96" 150
pairs_script session37_a 300
