#!/usr/bin/env bash
# Session 8, run D (nvidia-h200, ~6 min): programmatic dependent launch (PDL). Every sm90 GEMM and
# persistent conv is now built with CUTLASS's grid dependency control and launched with
# programmatic stream serialization, so back-to-back kernels overlap one's prologue with the
# other's tail (what cuBLAS's nvjet kernels were 12-17% ahead by on the same tile configs: run B).
#  1. A/B of the same cubins, KILN_PDL=0 then on: two one-wave GEMMs and two pointwise convs' GEMMs.
#  2. The conv suite (cubins compiled on the CPU host, carried in .devcarry/cache.txz).
#  3. The GEMM suite's session-6 winners re-timed (`kiln bench gemm --replay`): the same kernels,
#     now launched with PDL, against cuBLAS in the same process.
#  4. Every GPU test (incl. a chain of dependent launches, each reading the previous result).
set -u
source scripts/device/prelude.sh
ONLY="square.1024 bert-base.attn_out r50.res3.1x1b.gemm r50.res2.1x1a.gemm"
KILN_PDL=0 timeout 70 python3 -m bench.gemm_pairs --bias --only $ONLY --out $OUT/pdl_off.json > $OUT/pdl_off.log 2>&1
echo "pdl off rc=$?"; grep -v '^{' $OUT/pdl_off.log | cut -c1-150
timeout 70 python3 -m bench.gemm_pairs --bias --only $ONLY --out $OUT/pdl_on.json > $OUT/pdl_on.log 2>&1
echo "pdl on rc=$?"; grep -v '^{' $OUT/pdl_on.log | cut -c1-150
timeout 120 python3 -m bench.conv_suite --suite .devcarry/suite.json --limit 8 --out $OUT/conv2d.json > $OUT/conv2d.log 2>&1
echo "conv rc=$?"; grep -v '^{' $OUT/conv2d.log | tail -18 | cut -c1-160
timeout 150 python3 -m bench.gemm_suite --suite .devcarry/suite.json --replay bench/results/gemm_h200_20261129_session6_f.json \
  --out $OUT/gemm_replay.json > $OUT/gemm_replay.log 2>&1
echo "gemm replay rc=$?"; grep -v '^{' $OUT/gemm_replay.log | tail -21 | cut -c1-120
timeout 60 python3 scripts/device/prefill_gpu_tests.py > $OUT/prefill.log 2>&1; echo "prefill rc=$?"
timeout 130 python3 -m pytest -q -p no:cacheprovider tests/gpu -m gpu > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; tail -3 $OUT/gpu_tests.log | cut -c1-300
