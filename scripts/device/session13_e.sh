#!/usr/bin/env bash
# Session 13, run E (nvidia-h200, ~6 min): Kiln's weight-streaming decode kernel (sm90_skinny,
# templates/gemm_skinny_sm90.cu.j2), fourth version. Run D's profile: every decode kernel here is
# bound by the bytes of W in flight (Little's law at ~3 us of loaded latency): CUTLASS's 64x16 has
# ~200 KB of TMA stages on each of 64 SMs (55% of DRAM peak), run C's best skinny config 96 KB on
# 64 SMs (47%). So: rings of up to 16 slots and unroll up to 8 (most of the shared memory for W, 40
# KB for the activations), one pipeline over the whole K slice (the activations restaged between
# steps while W's copies keep flying; run C restarted the ring per piece).
#  1. its GPU tests (verification at tile edges, cluster splits 1/3/8, f16 and bf16);
#  2. `kiln bench pairs --skinny`: every config the rules accept on the suite's decode shapes
#     (and decode.m16 with bias + GELU), verified, timed beside cuBLAS in the same run;
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_skinny_gpu.py -m gpu > $OUT/gpu_tests.log 2>&1
echo "skinny gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | head -12 | cut -c1-250
timeout 330 python3 -m bench.gemm_pairs --skinny --out $OUT/skinny_pairs.json > $OUT/pairs.log 2>&1
echo "pairs rc=$?"; for s in decode.m16 decode.m64 decode.m128 decode.m16.bias_gelu; do grep "^$s " $OUT/pairs.log | head -6 | cut -c1-150; done
grep -c "verified\|timed" $OUT/pairs.log; grep -v "timed" $OUT/pairs.log | grep -v '^{' | tail -5 | cut -c1-300
xz -T0 $OUT/pairs.log
return_new_cache
