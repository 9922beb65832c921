#!/usr/bin/env bash
# Session 17, run A (nvidia-h200, ~9 min): cluster split-K (templates/cluster_splitk_kernel.cuh.j2),
# first time on a GPU. Its GPU tests (every slice count 1/2/4/8, tails, K tiles that do not divide),
# then `kiln bench pairs --cluster-split`: decode.m16, decode.m128 and square.1024's stored winners
# beside every cluster-split config the rules keep, verified, timed and re-timed interleaved with
# cuBLAS. The kernels compile first on the GPU host's 16 cores (prefill_gpu_tests.py --only-cluster-split).
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 240 python3 scripts/device/prefill_gpu_tests.py --only-cluster-split > $OUT/prefill.log 2>&1
echo "prefill rc=$? ok=$(grep -c '^ok' $OUT/prefill.log)"; grep -E "^FAIL|Error" $OUT/prefill.log | head -5 | cut -c1-200
timeout 200 python3 -m pytest -q -p no:cacheprovider -rA tests/gpu/test_gpu_tuning.py -k cluster_split -m gpu \
  > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | head -16 | cut -c1-250
timeout 330 python3 -m bench.gemm_pairs --cluster-split --out $OUT/cluster_split_pairs.json > $OUT/pairs.log 2>&1
echo "pairs rc=$?"; grep -E "µs" $OUT/pairs.log | cut -c1-160
return_new_cache
