#!/usr/bin/env bash
# Session 10, run A (nvidia-h200): the stream-K workspace clear (only the barriers now).
#  1. every GPU test, incl. the new stream-K test (dirty partials, barriers zeroed per launch);
#     cubins compiled on the CPU host (scripts/device/prefill_gpu_tests.py) and carried;
#  2. `kiln bench pairs --streamk`: stream-K against the persistent scheduler at the same
#     cooperative tiles on wave-limited shapes (res5.1x1c as a GEMM, decode.m128/m64, square.1024),
#     each stream-K cubin three ways (CUTLASS's heuristic, which runs res5.1x1c and square.1024
#     data-parallel; decomposition=streamk; split-K 2), each verified, then re-timed interleaved
#     with cuBLAS.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 240 python3 -m pytest -q -p no:cacheprovider tests/gpu -m gpu > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | head -8 | cut -c1-200
timeout 300 python3 -m bench.gemm_pairs --streamk --out $OUT/pairs_streamk.json > $OUT/pairs.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/pairs.log | cut -c1-150 | tail -80
return_new_cache
