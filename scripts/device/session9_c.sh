#!/usr/bin/env bash
# Session 9, run C (nvidia-h200, ~7 min), at the session's final GPU code:
#  1. every GPU test on the just-started machine, incl. the timing-stability test now timed the way
#     the tuner compares (time_interleaved: ten turns each; run B showed the power cap's wander);
#  2. the conv suite again (the re-time of the leaders now ten interleaved turns instead of three).
set -u
source scripts/device/prelude.sh
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/gpu -m gpu > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | head -8 | cut -c1-200
timeout 200 python3 -m bench.conv_suite --suite .devcarry/suite.json --limit 8 --out $OUT/conv2d.json > $OUT/conv2d.log 2>&1
echo "conv rc=$?"; grep -v '^{' $OUT/conv2d.log | tail -17 | cut -c1-150
