#!/usr/bin/env bash
# Session 36, run A (~5 min, H100 or H200): session 35's prepared runs C (o_proj's winner beside
# one-change twins under `kiln bench power`, zeroed then random operands, then the winner with
# programmatic dependent launch off) and D (`kiln bench turns` on the compute-bound winners). o_proj's
# and down's winners are the same kernel on both cards (256x128 cooperative under 1x2), so both runs
# read the same on either. No suite replay: no kernel code changed since the H200's standing replay
# (ddb3658). Every cubin is compiled on the CPU host first (compile_twins.py on
# gemm_h100_20261206_session33_b_search.json and session35_c_twins.json), then prepare_carry.sh.
set -u
nvidia-smi --query-gpu=name --format=csv,noheader
bash scripts/device/session35_c.sh; echo ======; bash scripts/device/session35_d.sh
