#!/usr/bin/env bash
# What is left to run on GPUs (written at the end of session 9). Session 9 added subtile stores in
# flight to the TMA epilogue (session9_a.sh), recorded the H200's power-cap clock wander and moved
# comparisons to ten interleaved turns (session9_b.sh), and re-ran the conv suite (0.992).
# What a next session should measure once its code lands:
#  1. res5.1x1c (1568x512x2048, 0.86x cuDNN): a wave problem (100 CTAs of 64x128 on 132 SMs).
#     Time cooperative stream-K at a 64-deep K tile (128x64x64 and 128x128x64, 1x1 and 1x2
#     clusters, CUTLASS's own DP+SK split) against the 100-CTA kernel, and find out whether the
#     stream-K launch adds a workspace clear per launch (per-launch events would charge it).
#  2. The same-config gap to nvjet on res3.1x1b / square.1024 (12-17% kernel time at Kiln's own
#     tile): `ncu --set full --import-source yes` on `python -m bench.kernel_profile --only …`,
#     one problem per run (command below), and compare stall reasons by source line.
#  3. A full GEMM suite re-tune (`kiln bench gemm --limit 16`): its search is unchanged since
#     session 6 (gemm_h200_20261129_session6_f.json), but its leaders are now re-timed in ten turns.
# Recipe: source scripts/device/prelude.sh; carry .whl and .devcarry (suite.json, commit, cache.txz);
# compile on the CPU host (scripts/device/prefill_gpu_tests.py for the GPU tests, `kiln compile
# --file` for suites) and end every run that compiles on the GPU host with return_new_cache: a
# later call gets a fresh machine (session 9's run C recompiled what run B had not carried back).
set -u
source scripts/device/prelude.sh
timeout 400 /usr/local/cuda/bin/ncu --nvtx --nvtx-include "kiln_profile/" --clock-control none --set full \
  --import-source yes -o $OUT/res3_1x1b python3 -m bench.kernel_profile \
  --result bench/results/conv2d_h200_20261130_session9_b.json --only r50.res3.1x1b > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; tail -3 $OUT/ncu.log
