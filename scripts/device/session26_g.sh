#!/usr/bin/env bash
# Session 26, run G (nvidia-h200, ~3 min): after the review's Workspaces refactor (one workspace
# policy for the runtime and the measurement process), the stream-K, per-warp-store and verification
# GPU tests and the client runtime's, then run A's pairs again (stream-K winners and their memset
# twins, single winners and their per-warp-store twins; each verified before it is timed).
set -u
source scripts/device/prelude.sh
timeout 300 python3 -m pytest -q -p no:cacheprovider -rA tests/gpu/test_gpu_tuning.py tests/gpu/test_torch_runtime.py -m gpu \
  -k "streamk or single_none or single_bias_gelu or swapped_single_consumer_per_warp or right_kernels_verify or matches_torch_on_several or parallel_split" \
  > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | tail -12 | cut -c1-250
cp $OUT/gpu_tests.log $OUT/gpu_tests_h200_session26_g.log
timeout 240 python3 scripts/device/session26_a.py $OUT/pairs.json > $OUT/pairs.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/pairs.log | cut -c1-150 | grep "#2" | head -30
