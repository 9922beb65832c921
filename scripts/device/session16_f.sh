#!/usr/bin/env bash
# Session 16, run F (nvidia-h200, ~5 min): session 13's suite winners replayed at this session's
# head (the launcher's new two-pass prepare must leave two-CTA kernels as they were), beside cuBLAS.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 420 python3 -m bench.gemm_suite --suite .devcarry/suite.json --replay scripts/device/replay_session13.json \
  --out $OUT/gemm_replay.json > $OUT/replay.log 2>&1
echo "replay rc=$?"; grep -v '^{' $OUT/replay.log | tail -22 | cut -c1-150
