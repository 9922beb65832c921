#!/usr/bin/env bash
# Session 12, run B (nvidia-h200, ~6 min): sm90 epilogues without a residual lose the beta * C
# node (templates/kiln_fusion.cuh.j2; run A's profile: one FFMA per output element that nvjet's
# kernel does not execute). Cubins compiled on the CPU host and carried.
#  1. every GPU test (verification of bias / no-bias / swapped / residual epilogues included);
#  2. the GEMM suite's session-6 winners and the conv suite's session-9 winners re-timed at this
#     commit (`--replay`), each verified and timed beside cuBLAS / cuDNN in the same run: the
#     ratios against the stored ones are what the change did;
#  3. Nsight Compute on Kiln's CUTLASS 2.x 256x64x32 4-warp conv kernel and cuDNN's kernel of the
#     same configuration on res2.1x1a (conv alone; run A: 20.9 vs 10.4 µs), exported per SASS
#     instruction for `kiln bench sass-mix`.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 240 python3 -m pytest -q -p no:cacheprovider tests/gpu -m gpu > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | head -8 | cut -c1-200
timeout 150 python3 -m bench.gemm_suite --suite .devcarry/suite.json --replay bench/results/gemm_h200_20261129_session6_f.json \
  --out $OUT/gemm_replay.json > $OUT/bench.log 2>&1
echo "gemm replay rc=$?"; grep -v '^{' $OUT/bench.log | tail -24 | cut -c1-150
timeout 120 python3 -m bench.conv_suite --suite .devcarry/suite.json --replay bench/results/conv2d_h200_20261130_session9_d.json \
  --out $OUT/conv_replay.json > $OUT/conv_replay.log 2>&1; rc=$?; cat $OUT/conv_replay.log >> $OUT/bench.log
echo "conv replay rc=$rc"; grep -v '^{' $OUT/conv_replay.log | tail -20 | cut -c1-150
rm -f $OUT/conv_replay.log
PROF="python3 -m bench.kernel_profile --result scripts/device/profile_rows_conv.json"
timeout 150 /usr/local/cuda/bin/ncu --nvtx --nvtx-include "kiln_profile/" --clock-control none --set full \
  --import-source yes -o /tmp/conv_prof $PROF >> $OUT/bench.log 2>&1
echo "conv profile rc=$?"; tail -3 $OUT/bench.log | cut -c1-200
/usr/local/cuda/bin/ncu --import /tmp/conv_prof.ncu-rep --page source --csv --print-source sass > $OUT/conv_sass.csv 2>> $OUT/bench.log
/usr/local/cuda/bin/ncu --import /tmp/conv_prof.ncu-rep --page raw --csv --metrics gpu__time_duration.sum,smsp__inst_executed.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__occupancy_limit_registers,sm__warps_active.avg.pct_of_peak_sustained_active \
  | grep -v '^==' | cut -c1-400 | tee -a $OUT/bench.log
xz -T0 $OUT/conv_sass.csv; ls -la $OUT
return_new_cache
