#!/usr/bin/env bash
# What is left to run on GPUs (written in session 10, which had no device time: its budget was
# spent in session 9). Run these in order once the code lands:
#  1. scripts/device/session10_a.sh (carry: scripts/device/prepare_carry.sh): every GPU test, incl. test_streamk_zeroes_only_its_barriers
#     (session 10 made the launcher zero only stream-K's barriers, meta[workspace_clear], instead of
#     the whole workspace; it is NOT yet run on a GPU; nor is decomposition=streamk, the launch
#     argument that makes CUTLASS share tiles where its heuristic runs data-parallel), then
#     `kiln bench pairs --streamk` (stream-K three ways vs the persistent scheduler at the same
#     cooperative tiles on res5.1x1c, decode.m128/m64, square.1024). Cubins: KILN_DATA_DIR=$PWD/.fleet-data python scripts/device/prefill_gpu_tests.py
#     and the pairs grid (bench.gemm_pairs.streamk_grid) compiled on the CPU host (~25 min on 2 cores).
#  2. If stream-K now beats the 100-CTA kernel on res5.1x1c (12.1 µs vs cuDNN 10.5-10.9), refit the
#     stream-K fix-up term (`python -m bench.ranking_fit`; its timings carried the old memset) and
#     re-run the conv suite (session9_d.sh's last three commands): #5's conv-alone target is 0.995.
#  3. The same-config gap to nvjet on res3.1x1b / square.1024: ncu below, one problem per run.
#  4. A full GEMM suite re-tune (`kiln bench gemm --limit 16`) for #4.
# Recipe: source scripts/device/prelude.sh; carry .whl and .devcarry (suite.json, commit, cache.txz);
# end every run that compiles on the GPU host with return_new_cache.
set -u
source scripts/device/prelude.sh
timeout 400 /usr/local/cuda/bin/ncu --nvtx --nvtx-include "kiln_profile/" --clock-control none --set full \
  --import-source yes -o $OUT/res3_1x1b python3 -m bench.kernel_profile \
  --result bench/results/conv2d_h200_20261130_session9_b.json --only r50.res3.1x1b > $OUT/ncu.log 2>&1
echo "ncu rc=$?"; tail -3 $OUT/ncu.log
