#!/usr/bin/env bash
# Session 6, run G (nvidia-h200, ~7 min): every GPU test at the session's last kernel/runtime
# change, the one-wave K sweep (`kiln bench pairs --ksweep`), then the conv suite again through
# the re-fitted GEMM ranking (its pointwise layers run GEMM kernels), every conv variant compiled
# on the CPU host and carried.
set -u
source scripts/device/prelude.sh
timeout 150 python3 scripts/device/prefill_gpu_tests.py > $OUT/prefill.log 2>&1; echo "prefill rc=$?"
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/gpu -m gpu > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; tail -3 $OUT/gpu_tests.log
timeout 90 python3 -m bench.gemm_pairs --ksweep --out $OUT/pairs_ksweep.json > $OUT/pairs_ksweep.log 2>&1
echo "ksweep rc=$?"; grep -v '^{' $OUT/pairs_ksweep.log | tail -10
timeout 200 python3 -m bench.conv_suite --suite .devcarry/suite.json --limit 8 --out $OUT/conv2d.json > $OUT/conv2d.log 2>&1
echo "conv rc=$?"; grep -v '^{' $OUT/conv2d.log | tail -18 | cut -c1-160
