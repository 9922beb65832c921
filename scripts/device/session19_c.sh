#!/usr/bin/env bash
# Session 19, run C (nvidia-h200, ~7 min), cubins compiled on the CPU host and carried:
#  1. the whole suite replayed (`kiln bench gemm --replay scripts/device/replay_session19.json`), each
#     winner now with its leader twin (TMA L2 promotion 256, worker/selection.py leader_twins);
#  2. `kiln bench gemm --only bert-base.ffn1 --limit 16 --warm 1`: the search itself (cold compile on
#     this host's 16 cores), which holds the tall swapped tile.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
suite_replay scripts/device/replay_session19.json 280
timeout 200 python3 -m bench.gemm_suite --suite .devcarry/suite.json --only bert-base.ffn1 --limit 16 --warm 1 \
  --out $OUT/gemm_ffn1_search.json > $OUT/search.log 2>&1
echo "search rc=$?"; grep -v '^{' $OUT/search.log | tail -4 | cut -c1-150
return_new_cache
