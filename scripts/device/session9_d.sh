#!/usr/bin/env bash
# Session 9, run D (nvidia-h200, ~6 min), at the session's final code:
#  1. every GPU test on the just-started machine (cubins for them compiled on the CPU host by
#     scripts/device/prefill_gpu_tests.py and carried), incl. the timing-stability test timed the
#     way the tuner compares (ten interleaved turns) and a cooperative persistent conv with four
#     TMA subtile stores in flight;
#  2. the conv suite at the final code (what the CPU host had not compiled: here on 16 cores).
set -u
source scripts/device/prelude.sh
timeout 240 python3 -m pytest -q -p no:cacheprovider tests/gpu -m gpu > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | head -8 | cut -c1-200
timeout 100 python3 -m service.cli.main compile --file .devcarry/conv_problems.json --arch sm_90a --limit 8 --jobs 16 \
  > $OUT/compile.log 2>&1; echo "compile rc=$?"; tail -1 $OUT/compile.log | cut -c1-200
timeout 150 python3 -m bench.conv_suite --suite .devcarry/suite.json --limit 8 --out $OUT/conv2d.json > $OUT/conv2d.log 2>&1
echo "conv rc=$?"; grep -v '^{' $OUT/conv2d.log | tail -17 | cut -c1-150
