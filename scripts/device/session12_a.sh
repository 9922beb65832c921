#!/usr/bin/env bash
# Session 12, run A (nvidia-h200, ~8 min), cubins compiled on the CPU host and carried:
#  1. `kiln bench conv-pairs` (session 11's run B, lost with that session's compile cache): CUTLASS
#     2.x conv kernels by CTAs per SM against each layer's session-9 winner and cuDNN;
#  2. session 11's run C: ncu opcode mix, issue-stall samples and a SASS-level report of two sm90
#     GEMM kernels and cuBLAS's nvjet kernel of the same tile (scripts/device/profile_rows.json).
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 200 python3 -m bench.conv_pairs --suite .devcarry/suite.json --out $OUT/conv_pairs.json > $OUT/conv_pairs.log 2>&1
echo "conv pairs rc=$?"; grep -v '^{' $OUT/conv_pairs.log | cut -c1-150 | tail -70
PROF="python3 -m bench.kernel_profile --result scripts/device/profile_rows.json"
timeout 120 /usr/local/cuda/bin/ncu --nvtx --nvtx-include "kiln_profile/" --clock-control none \
  --metrics sass__inst_executed_per_opcode,smsp__inst_executed.sum,smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle,smsp__pcsamp_warps_issue_stalled_membar,smsp__pcsamp_warps_issue_stalled_sleeping,smsp__pcsamp_warps_issue_stalled_selected,smsp__pcsamp_warps_issue_stalled_short_scoreboard,smsp__pcsamp_warps_issue_stalled_mio_throttle,smsp__pcsamp_warps_issue_stalled_lg_throttle,smsp__pcsamp_warps_issue_stalled_dispatch_stall,smsp__pcsamp_warps_issue_stalled_no_instructions,smsp__pcsamp_warps_issue_stalled_branch_resolving,gpu__time_duration.sum \
  --print-metric-instances values --csv --page raw $PROF > $OUT/opcodes.csv 2>> $OUT/ncu.log
echo "opcodes rc=$?"; wc -l $OUT/opcodes.csv; tail -2 $OUT/ncu.log | cut -c1-300
timeout 180 /usr/local/cuda/bin/ncu --nvtx --nvtx-include "kiln_profile/" --clock-control none --set full \
  --import-source yes -o $OUT/prof $PROF >> $OUT/ncu.log 2>&1
echo "full rc=$?"; tail -2 $OUT/ncu.log | cut -c1-300
/usr/local/cuda/bin/ncu --import $OUT/prof.ncu-rep --page source --csv --print-source sass > $OUT/sass.csv 2>> $OUT/ncu.log
echo "sass rc=$?"; wc -c $OUT/sass.csv; tail -c 600 $OUT/ncu.log
xz -T0 $OUT/sass.csv; ls -la $OUT
return_new_cache
