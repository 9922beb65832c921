#!/usr/bin/env bash
# What is left to run on GPUs (written at the end of session 8). Session 8 profiled the widest gaps
# with Nsight Compute (session8_b.sh), measured the bias's cost (session8_c.sh) and added
# programmatic dependent launch (session8_d.sh: A/B, conv suite, GEMM winners re-timed, GPU tests).
# What a next session should measure once its code lands:
#  0. First, on the just-started machine: scripts/device/session8_f.sh (the timing-stability test
#     with the 8-20 s first settle; never run: session 8's device time was spent).
#  1. The same-config gap to nvjet (res3.1x1b 15.1 vs 12.5 µs, square.1024 8.0 vs 7.1 under ncu):
#     profile deeper than run B's sections (source counters / SASS of both kernels:
#     `ncu --set full --import-source yes` on `python -m bench.kernel_profile --only r50.res3.1x1b`),
#     one problem at a time (run A showed ncu is slow on everything cuDNN's algorithm search loads).
#  2. A full GEMM suite re-tune (`kiln bench gemm --limit 16`): compile the 288 variants on a CPU
#     host first (`kiln compile --file gemm_problems.json --limit 16`, ~1.5 h on 2 cores) and carry them.
# Recipe: source scripts/device/prelude.sh; carry .whl and .devcarry (suite.json, commit, cache.txz);
# compile on the CPU host, never in a tune call inside a device run (session8_c.sh lost 8 minutes to
# one-config-at-a-time compiles); `return_new_cache` brings back what a run compiled.
set -u
source scripts/device/prelude.sh
timeout 400 /usr/local/cuda/bin/ncu --nvtx --nvtx-include "kiln_profile/" --clock-control none --set full \
  --import-source yes -o $OUT/res3_1x1b python3 -m bench.kernel_profile \
  --result bench/results/conv2d_h200_20261130_session7_e.json --only r50.res3.1x1b > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; tail -3 $OUT/ncu.log
