#!/usr/bin/env bash
# Session 8, run A (nvidia-h200, ~4 min): Nsight Compute on the widest gaps. For the pointwise conv
# layers (0.80-0.96 vs cuDNN alone), a well-matched 3x3 layer, and the GEMM shapes furthest below
# cuBLAS, `python -m bench.kernel_profile` launches the stored winner, the library's own call and a
# copy of the same bytes once each inside cudaProfilerStart/Stop; ncu reads their counters
# (--clock-control none: the clocks stay as the timing runs see them). Cubins come compiled from
# the CPU host (.devcarry/cache.txz).
set -u
source scripts/device/prelude.sh
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
SECTIONS="--section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis"
timeout 400 $NCU --profile-from-start off --clock-control none $SECTIONS --csv --page details \
  python3 -m bench.kernel_profile --result bench/results/conv2d_h200_20261130_session7_e.json \
  --result bench/results/gemm_h200_20261129_session6_f.json \
  --only r50.res2.1x1a r50.res2.1x1b r50.res3.1x1b r50.res4.1x1b r50.res5.1x1c r50.res2.3x3 square.1024 bert-base.attn_out bert-base.qkv decode.m64 \
  > $OUT/ncu.csv 2> $OUT/ncu.err
echo "ncu rc=$?"; grep -c . $OUT/ncu.csv; tail -5 $OUT/ncu.err | cut -c1-300
grep '^{' $OUT/ncu.csv | head -3; grep -v '^"' $OUT/ncu.csv | grep -v '^{' | head -20 | cut -c1-200
