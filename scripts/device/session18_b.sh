#!/usr/bin/env bash
# Session 18, run B (nvidia-h200, ~7 min), cubins compiled on the CPU host and carried:
#  1. scripts/device/session18_b.py: bert-base.ffn1's fusion cost under a 64-wide TMA-epilogue
#     subtile, per-warp TMA stores and four subtile stores in flight, each with and without its
#     bias + GELU, two interleaved turns;
#  2. the whole suite replayed at this commit (`kiln bench gemm --replay
#     scripts/device/replay_session17.json`: session 17's winners, the fused shapes now with Kiln's
#     activation functors, the default since run A), beside cuBLAS.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 200 python3 scripts/device/session18_b.py $OUT/ffn1_epilogue.json > $OUT/ffn1_epilogue.log 2>&1
echo "ffn1 epilogue rc=$?"; grep -v '^{' $OUT/ffn1_epilogue.log | cut -c1-150 | tail -16
timeout 330 python3 -m bench.gemm_suite --suite .devcarry/suite.json --replay scripts/device/replay_session17.json \
  --out $OUT/gemm_replay.json > $OUT/replay.log 2>&1
echo "replay rc=$?"; grep -v '^{' $OUT/replay.log | tail -22 | cut -c1-150
return_new_cache
