#!/usr/bin/env bash
# Session 19, run B (nvidia-h200, ~6 min), cubins compiled on the CPU host and carried:
#  1. scripts/device/session19_b.py: run A's leads again, two turns (tall swapped 2x1 on bert-base.ffn1
#     fused and bare, llama7b.qkv, bert-large.qkv; square.1024 at each TMA L2 promotion);
#  2. the whole suite replayed (`kiln bench gemm --replay scripts/device/replay_session19.json`);
#  3. `kiln bench gemm --only llama7b.qkv --limit 16`: the search itself, with the cluster-padding
#     cost term (its tall swapped slot is now 2x1).
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 150 python3 scripts/device/session19_b.py .devcarry/suite.json $OUT/leads.json > $OUT/leads.log 2>&1
echo "leads rc=$?"; grep -v '^{' $OUT/leads.log | cut -c1-140 | tail -24
suite_replay scripts/device/replay_session19.json 250
timeout 170 python3 -m bench.gemm_suite --suite .devcarry/suite.json --only llama7b.qkv --limit 16 --warm 1 \
  --out $OUT/gemm_qkv_search.json > $OUT/search.log 2>&1
echo "search rc=$?"; grep -v '^{' $OUT/search.log | tail -4 | cut -c1-150
return_new_cache
