#!/usr/bin/env bash
# Session 12, run B (nvidia-h200, ~6 min): sm90 epilogues without a residual lose the beta * C
# node (templates/kiln_fusion.cuh.j2; run A's profile: one FFMA per output element that nvjet's
# kernel does not execute). Cubins compiled on the CPU host and carried.
#  1. every GPU test (verification of bias / no-bias / swapped / residual epilogues included);
#  2. the GEMM suite's session-6 winners and the conv suite's session-9 winners re-timed at this
#     commit (`--replay`), each verified and timed beside cuBLAS / cuDNN in the same run: the
#     ratios against the stored ones are what the change did.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 240 python3 -m pytest -q -p no:cacheprovider tests/gpu -m gpu > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | head -8 | cut -c1-200
timeout 150 python3 -m bench.gemm_suite --suite .devcarry/suite.json --replay bench/results/gemm_h200_20261129_session6_f.json \
  --out $OUT/gemm_replay.json > $OUT/gemm_replay.log 2>&1
echo "gemm replay rc=$?"; grep -v '^{' $OUT/gemm_replay.log | tail -24 | cut -c1-150
timeout 120 python3 -m bench.conv_suite --suite .devcarry/suite.json --replay bench/results/conv2d_h200_20261130_session9_d.json \
  --out $OUT/conv_replay.json > $OUT/conv_replay.log 2>&1
echo "conv replay rc=$?"; grep -v '^{' $OUT/conv_replay.log | tail -20 | cut -c1-150
return_new_cache
