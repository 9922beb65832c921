#!/usr/bin/env bash
# Session 8, run B (nvidia-h200, ~4 min): run A's profile, narrowed. Run A profiled nothing in
# 400 s: cudaProfilerStart from torch did not open ncu's window, and every module cuDNN's algorithm
# search loads is slow under ncu. Here an NVTX range selects the kernels, three problems only:
# the worst pointwise conv (res2.1x1a), a wider one (res3.1x1b) and square.1024.
set -u
source scripts/device/prelude.sh
SECTIONS="--section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats"
timeout 300 /usr/local/cuda/bin/ncu --nvtx --nvtx-include "kiln_profile/" --clock-control none $SECTIONS --csv --page details \
  --log-file $OUT/ncu.log python3 -m bench.kernel_profile --result bench/results/conv2d_h200_20261130_session7_e.json \
  --result bench/results/gemm_h200_20261129_session6_f.json --only r50.res2.1x1a r50.res3.1x1b square.1024 \
  > $OUT/ncu.csv 2> $OUT/ncu.err
echo "ncu rc=$?"; wc -l $OUT/ncu.csv $OUT/ncu.log; grep -c "Profiling" $OUT/ncu.log; tail -3 $OUT/ncu.err | cut -c1-300
