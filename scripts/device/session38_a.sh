#!/usr/bin/env bash
# Session 38, run A (~7 min): the odd-width tiles' B in one TMA box a stage (templates/one_box_b_mainloop.cuh.j2):
# their GPU tests (and the interleaved cluster split-K one, session 37 run C's), decode.m64's 88-row twins
# beside the winner (scripts/device/session38_a.py), then session 37 run C's interleaved K slices
# (scripts/device/session37_c.py). Compile first on the CPU host: compile_twins.py session38_a session37_c
# (plus the GPU tests' odd-width and interleaved cubins), then prepare_carry.sh.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
pairs_script session38_a 130  # first: the device budget left may not cover the rest (each twin is verified first)
gpu_tests_matching "odd_width or interleaved" 110
pairs_script session37_c 150
