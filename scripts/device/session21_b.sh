#!/usr/bin/env bash
# Session 21, run B (nvidia-h200, ~10 min): the decode shapes searched in the space session 21 run A
# widened (swapped 4x1 activation multicast, cuBLAS's 64x96 tile), then every other suite shape's
# stored winner replayed (scripts/device/replay_session21.json) for one geomean of the suite.
set -u
source scripts/device/prelude.sh
suite_search "decode.m16 decode.m64 decode.m128" 200
suite_replay scripts/device/replay_session21.json 400
