#!/usr/bin/env bash
# Session 15, run A (nvidia-h200, ~9 min): the per-warp-store TMA epilogue (warp_stores).
#  1. its GPU tests (tails in M and N, many tiles per CTA, a staged row bias at K = 128);
#  2. `kiln bench pairs --warp-stores`: every stored suite winner that can take it, and three
#     store-bound conv GEMMs, with CUTLASS's epilogue and with per-warp stores, beside cuBLAS.
# Compiles on the GPU host (16 cores): the CPU host's cache was empty this session.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 170 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_tuning.py -k per_warp -m gpu > $OUT/gpu_tests.log 2>&1
echo "warp-store gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | head -12 | cut -c1-250
timeout 380 python3 -m bench.gemm_pairs --warp-stores --out $OUT/warp_stores_pairs.json > $OUT/pairs.log 2>&1
echo "pairs rc=$?"; grep -E "µs" $OUT/pairs.log | cut -c1-150
xz -T0 $OUT/pairs.log
