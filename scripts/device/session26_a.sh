#!/usr/bin/env bash
# Session 26, run A (nvidia-h200, ~4 min): the self-clearing stream-K scheduler's and the
# single-consumer per-warp stores' GPU tests, then scripts/device/session26_a.py (each stream-K
# winner beside its memset twin, each single winner beside its per-warp-store twin; two turns).
set -u
source scripts/device/prelude.sh
timeout 240 python3 -m pytest -q -p no:cacheprovider -rA tests/gpu/test_gpu_tuning.py tests/gpu/test_torch_runtime.py -m gpu \
  -k "streamk or single_none or single_bias_gelu or swapped_single_consumer_per_warp" > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^PASSED|^E  " $OUT/gpu_tests.log | tail -20 | cut -c1-250
timeout 420 python3 scripts/device/session26_a.py $OUT/pairs.json > $OUT/pairs.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/pairs.log | cut -c1-170 | tail -40
return_new_cache
