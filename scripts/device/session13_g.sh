#!/usr/bin/env bash
# Session 13, run G (nvidia-h200, ~4 min): the GEMM suite as it stands at this commit, no search:
# session 12's replayed winners, the decode shapes from run F's search (parallel split-K's reduction
# now a programmatic dependent of its GEMM), each verified and timed beside cuBLAS in one process.
set -u
source scripts/device/prelude.sh
timeout 300 python3 -m bench.gemm_suite --suite .devcarry/suite.json --replay scripts/device/replay_session13.json \
  --out $OUT/gemm_replay.json > $OUT/gemm.log 2>&1
echo "gemm replay rc=$?"; grep -v '^{' $OUT/gemm.log | tail -22 | cut -c1-150
