#!/usr/bin/env bash
# Session 17, run E (nvidia-h200, ~6 min): cluster split-K with a shared tail (no-smem epilogue: every
# CTA of the cluster sums and stores 1/S of the tile). Compiles the cluster split-K test and pairs
# kernels on the GPU host, runs their GPU tests and the client runtime's, then `kiln bench pairs
# --cluster-split` on the decode shapes (stored winners against every cluster split-K config kept).
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 200 python3 scripts/device/prefill_gpu_tests.py --only-cluster-split > $OUT/prefill.log 2>&1
echo "prefill rc=$? ok=$(grep -c '^ok' $OUT/prefill.log)"; grep -E "^FAIL|Error" $OUT/prefill.log | head -5 | cut -c1-200
timeout 150 python3 -m pytest -q -p no:cacheprovider -rA tests/gpu/test_gpu_tuning.py tests/gpu/test_torch_runtime.py \
  -k "cluster_split or split_k_kernels" -m gpu > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | head -16 | cut -c1-250
timeout 200 python3 -m bench.gemm_pairs --cluster-split --only decode.m16 decode.m128 --out $OUT/cluster_split_pairs.json \
  > $OUT/pairs.log 2>&1
echo "pairs rc=$?"; grep -E "µs" $OUT/pairs.log | cut -c1-160
