#!/usr/bin/env bash
# Session 19, run A (nvidia-h200, ~9 min), cubins compiled on the CPU host and carried:
#  1. `kiln bench pairs --l2-promotion`: every replayed suite winner (scripts/device/replay_session18.json)
#     with its tiled TMA descriptors encoded at L2 promotion 128 (CUTLASS's), 256 and none;
#  2. `kiln bench pairs --tall-swapped`: each winner beside the swapped 128x192 ping-pong tile under
#     both 2-CTA clusters (every mid-size and large selection holds it since session 18).
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 290 python3 -m bench.gemm_pairs --suite .devcarry/suite.json --l2-promotion --out $OUT/l2_promotion.json \
  > $OUT/l2.log 2>&1
echo "l2 rc=$?"; grep -v '^{' $OUT/l2.log | cut -c1-140 | tail -60
timeout 250 python3 -m bench.gemm_pairs --suite .devcarry/suite.json --tall-swapped --out $OUT/tall_swapped.json \
  > $OUT/tall.log 2>&1
echo "tall rc=$?"; grep -v '^{' $OUT/tall.log | cut -c1-140 | tail -50
return_new_cache
