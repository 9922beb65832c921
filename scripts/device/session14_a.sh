#!/usr/bin/env bash
# Session 14, run A (nvidia-h200, ~7 min):
#  1. `python -m bench.stream_floor`: the fastest a decode GEMM could run (one kernel that only reads
#     W, every launch geometry) beside cuBLAS's GEMM, same process: is decode >= 1.15x reachable?
#  2. the weight-streaming kernel's fifth version (ldmatrix from swizzled per-warp rings,
#     predicate-free copies): its GPU tests, then `kiln bench pairs --skinny` beside cuBLAS.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 120 python3 -m bench.stream_floor --out $OUT/stream_floor.json > $OUT/floor.log 2>&1
echo "floor rc=$?"; grep -v '^/' $OUT/floor.log | tail -5 | cut -c1-200
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_skinny_gpu.py -m gpu > $OUT/gpu_tests.log 2>&1
echo "skinny gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | head -12 | cut -c1-250
timeout 330 python3 -m bench.gemm_pairs --skinny --out $OUT/skinny_pairs.json > $OUT/pairs.log 2>&1
echo "pairs rc=$?"; for s in decode.m16 decode.m64 decode.m128 decode.m16.bias_gelu; do grep "^$s " $OUT/pairs.log | head -5 | cut -c1-150; done
grep -v "timed" $OUT/pairs.log | grep -v '^{' | tail -5 | cut -c1-300
xz -T0 $OUT/pairs.log
return_new_cache
