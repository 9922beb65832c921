#!/usr/bin/env bash
# Session 43, run C (~2 min): the split-N kernel with 64x128 wgmma atoms (192x256 tiles) beside the
# winners of llama7b.qkv, o_proj and square.8192 and cuBLAS (scripts/device/session43_c.py): is run
# A's loss the 64-wide atoms' shared-memory reads? Compile first on the CPU host: compile_twins.py
# session43_c (2 split-N cubins, ~1 min on 2 cores), then prepare_carry.sh.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
pairs_script session43_c 300
