#!/usr/bin/env bash
# Session 14, run F (nvidia-h200, ~4 min): the weight-streaming kernel's W loads with an L2 256-byte
# prefetch hint (run E: it streamed 2.0-2.5 TB/s in steady state where CUTLASS reaches 4.4, with
# the same fixed cost). Its GPU tests, the decode.m16 K sweep again, then every decode.m16 config.
set -u
source scripts/device/prelude.sh
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_skinny_gpu.py -m gpu > $OUT/gpu_tests.log 2>&1
echo "skinny gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | head -12 | cut -c1-250
timeout 200 python3 -m bench.gemm_pairs --decode-ksweep --out $OUT/decode_ksweep.json > $OUT/ksweep.log 2>&1
echo "ksweep rc=$?"; grep "^decode" $OUT/ksweep.log | cut -c1-150
timeout 300 python3 -m bench.gemm_pairs --skinny --only decode.m16 decode.m16.bias_gelu --out $OUT/skinny_pairs.json > $OUT/pairs.log 2>&1
echo "pairs rc=$?"; for s in decode.m16 decode.m16.bias_gelu; do grep "^$s " $OUT/pairs.log | head -6 | cut -c1-150; done
xz -T0 $OUT/pairs.log
