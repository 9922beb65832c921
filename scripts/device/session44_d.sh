#!/usr/bin/env bash
# Session 44, run D (~3 min): the suite replay with the split-N 192x256 tile's winners. On an H200:
# the search on llama7b.qkv and square.8192 (the tile is in the space since session 44; its cubins
# are the ones session44_c.sh carried), then session 26 run C's winners replayed (the standing H200
# figures, last at ddb3658). On an H100: session 33 run B's winners with session 44 run C's two
# (scripts/device/session44_d_h100_winners.json) replayed. Compile first on the CPU host:
# compile_twins.py on both winner files and the session44_c compile (see its header), then
# prepare_carry.sh.
set -u
source scripts/device/prelude.sh
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$GPU"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
if echo "$GPU" | grep -q H200; then
  suite_search "llama7b.qkv square.8192" 300
  suite_replay bench/results/gemm_h200_20261204_session26_c_search.json 240
else
  suite_replay scripts/device/session44_d_h100_winners.json 400
fi
return_new_cache
