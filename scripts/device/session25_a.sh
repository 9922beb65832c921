#!/usr/bin/env bash
# Session 25, run A (nvidia-h200, ~5 min): the wgmma issue order (KernelConfig.mma_order, Kiln's
# row-ordered mainloop) beside run B's winners (scripts/device/session25_a.py; two turns, each twin
# verified first), then the row-ordered mainloops' GPU tests.
set -u
source scripts/device/prelude.sh
timeout 330 python3 scripts/device/session25_a.py $OUT/mma_order.json > $OUT/mma_order.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/mma_order.log | cut -c1-160 | tail -60
timeout 200 python3 -m pytest -q -p no:cacheprovider -rA tests/gpu/test_gpu_tuning.py -m gpu -k row_ordered \
  > $OUT/gpu_tests_row_order.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests_row_order.log | tail -12 | cut -c1-250
return_new_cache
