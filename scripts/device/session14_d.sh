#!/usr/bin/env bash
# Session 14, run D (nvidia-h200, ~5 min): the weight-streaming kernel with warps along K too (run
# C: 64 CTAs of four warps, each over a whole 4096-deep K, ran decode.m16 at 33.8 us, 1.1 TB/s; the
# stream floor wants ~1,000 threads with ~8 loads each per SM). Compiled here (16 cores), its GPU
# tests (a 4x4-warp config with restaged pieces among them), then `kiln bench pairs --skinny` on
# decode.m16 with and without bias + GELU, beside cuBLAS in the same process.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_skinny_gpu.py -m gpu > $OUT/gpu_tests.log 2>&1
echo "skinny gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | head -12 | cut -c1-250
timeout 360 python3 -m bench.gemm_pairs --skinny --only decode.m16 decode.m16.bias_gelu --out $OUT/skinny_pairs.json > $OUT/pairs.log 2>&1
echo "pairs rc=$?"; for s in decode.m16 decode.m16.bias_gelu; do grep "^$s " $OUT/pairs.log | head -8 | cut -c1-150; done
grep -v "timed" $OUT/pairs.log | grep -v '^{' | tail -5 | cut -c1-300
xz -T0 $OUT/pairs.log
