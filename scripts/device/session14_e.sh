#!/usr/bin/env bash
# Session 14, run E (nvidia-h200, ~2 min): where decode.m16's time goes. `kiln bench pairs
# --decode-ksweep`: Kiln's weight-streaming kernel (best cluster-split and best unsplit configs of
# run D) and CUTLASS's swapped 64x16 winner at M=16, N=4096, K = 256 ... 16384, beside cuBLAS.
set -u
source scripts/device/prelude.sh
timeout 300 python3 -m bench.gemm_pairs --decode-ksweep --out $OUT/decode_ksweep.json > $OUT/ksweep.log 2>&1
echo "ksweep rc=$?"; grep "^decode" $OUT/ksweep.log | cut -c1-150
