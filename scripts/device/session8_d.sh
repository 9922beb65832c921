#!/usr/bin/env bash
# Session 8, run D (nvidia-h200, ~3 min): programmatic dependent launch (PDL). Every sm90 GEMM and
# persistent conv is now built with CUTLASS's grid dependency control and launched with
# programmatic stream serialization, so a kernel's launch and prologue may overlap the previous
# kernel's tail (as cuBLAS's nvjet kernels are launched).
#  1. A/B of the same cubins, KILN_PDL=0 then on: two one-wave GEMMs and two pointwise convs' GEMMs.
#  2. Every GPU test (incl. a chain of dependent launches, each reading the previous result).
# Cubins compiled on the CPU host (.devcarry/cache.txz).
set -u
source scripts/device/prelude.sh
ONLY="square.1024 bert-base.attn_out r50.res3.1x1b.gemm r50.res2.1x1a.gemm"
KILN_PDL=0 timeout 80 python3 -m bench.gemm_pairs --bias --only $ONLY --out $OUT/pdl_off.json > $OUT/pdl_off.log 2>&1
echo "pdl off rc=$?"; grep -v '^{' $OUT/pdl_off.log | cut -c1-150
timeout 80 python3 -m bench.gemm_pairs --bias --only $ONLY --out $OUT/pdl_on.json > $OUT/pdl_on.log 2>&1
echo "pdl on rc=$?"; grep -v '^{' $OUT/pdl_on.log | cut -c1-150
timeout 90 python3 scripts/device/prefill_gpu_tests.py > $OUT/prefill.log 2>&1; echo "prefill rc=$?"; grep -c "^ok" $OUT/prefill.log
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/gpu -m gpu > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; tail -3 $OUT/gpu_tests.log | cut -c1-300
