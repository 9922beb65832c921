#!/usr/bin/env bash
# Session 7, run A (nvidia-h200, ~9 min): Kiln's persistent sm90 conv kernels (cooperative and
# ping-pong CUTLASS GEMM kernels around the conv mainloop). Compile the conv suite's variants and
# every GPU test's kernels on the GPU host's 16 cores (the cache comes back as cache.txz), then
# the persistent-conv GPU test.
set -u
source scripts/device/prelude.sh
timeout 330 python3 -m service.cli.main compile --file .devcarry/conv_problems.json --arch sm_90a --limit 8 --jobs 16 \
  > $OUT/compile.log 2>&1; echo "compile rc=$?"; tail -3 $OUT/compile.log | cut -c1-200
timeout 120 python3 scripts/device/prefill_gpu_tests.py > $OUT/prefill.log 2>&1; echo "prefill rc=$?"; grep FAIL $OUT/prefill.log | head
tar -I 'xz -T0 -1' -cf $OUT/cache.txz -C .fleet-data --exclude=compile-cache/pch --exclude=compile-cache/locks compile-cache
timeout 90 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_conv_gpu.py -m gpu -k persistent > $OUT/gpu_persistent.log 2>&1
echo "persistent test rc=$?"; tail -30 $OUT/gpu_persistent.log | cut -c1-400
