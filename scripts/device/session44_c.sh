#!/usr/bin/env bash
# Session 44, run C (~3 min): the search (`kiln bench gemm --limit 16`) on llama7b.qkv and
# square.8192, the suite shapes where the split-N 192x256 tile now ranks among the 16
# (space.sm90_split_n_configs): does the search pick it where session 44 run B's pairs had it 0.8%
# ahead (llama7b.qkv)? Compile first on the CPU host: `kiln compile --file` on those two shapes of
# .devcarry/gemm_problems.json with --limit 16 (~15 min on 2 cores), then prepare_carry.sh.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
suite_search "llama7b.qkv square.8192" 360
return_new_cache
