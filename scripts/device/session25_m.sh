#!/usr/bin/env bash
# Session 25, run M (nvidia-h200, ~1 min): the phase clock on square.1024's single-consumer tiles at
# K 1024 and 4096: the winner's 64x128 and cuBLAS's 128x64 (run L: nvjet 128x64_64x8 on a 1x2
# cluster at every K), the latter under 1x1 and 1x2 (scripts/device/session25_m_configs.json).
set -u
source scripts/device/prelude.sh
timeout 240 python3 -m bench.phase_clock --result scripts/device/session25_m_configs.json \
  --out $OUT/phase_clock.json > $OUT/phase_clock.log 2>&1
echo "phase clock rc=$?"; grep -v '^{' $OUT/phase_clock.log | cut -c1-330 | tail -8
