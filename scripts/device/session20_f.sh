#!/usr/bin/env bash
# Session 20, run F (nvidia-h200, ~3 min): the per-warp-store GPU tests (swapped and plain kernels),
# then scripts/device/session20_f.py: bert-base.ffn1's fusion cost on its swapped 2x1 winner with and
# without per-warp stores, two turns.
set -u
source scripts/device/prelude.sh
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_tuning.py -m gpu -k "warp_store" \
  > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | tail -6 | cut -c1-200
timeout 150 python3 scripts/device/session20_f.py $OUT/ffn1_warp_stores.json > $OUT/ffn1_warp_stores.log 2>&1
echo "rc=$?"; grep -v '^{' $OUT/ffn1_warp_stores.log | cut -c1-140 | tail -12
