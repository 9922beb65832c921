#!/usr/bin/env bash
# Session 11, run C (nvidia-h200): where Kiln's sm90 kernel spends instructions that cuBLAS's nvjet
# kernel of the same tile, K depth, cluster and schedule does not (session 8: ~2x the warp
# instructions, 12-20% longer). Both without epilogue, so only the kernel bodies differ:
# square.1024 under 128x64x64 1x2 cooperative (nvjet_sm90_hsh_128x64_64x8_1x2) and res3.1x1b as a
# GEMM under 256x128x64 1x2 cooperative (nvjet_sm90_hsh_256x128_64x4_1x2 coopA).
#  1. per-opcode executed-instruction counts and issue-stall samples of each kernel (CSV);
#  2. a full Nsight Compute report with SASS-level source counters, exported per instruction.
set -u
source scripts/device/prelude.sh
PROF="python3 -m bench.kernel_profile --result .devcarry/profile_rows.json"
timeout 200 /usr/local/cuda/bin/ncu --nvtx --nvtx-include "kiln_profile/" --clock-control none \
  --metrics sass__inst_executed_per_opcode,smsp__inst_executed.sum,smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle,smsp__pcsamp_warps_issue_stalled_membar,smsp__pcsamp_warps_issue_stalled_sleeping,smsp__pcsamp_warps_issue_stalled_selected,smsp__pcsamp_warps_issue_stalled_short_scoreboard,smsp__pcsamp_warps_issue_stalled_mio_throttle,smsp__pcsamp_warps_issue_stalled_lg_throttle,smsp__pcsamp_warps_issue_stalled_dispatch_stall,smsp__pcsamp_warps_issue_stalled_no_instructions,smsp__pcsamp_warps_issue_stalled_branch_resolving,gpu__time_duration.sum \
  --print-metric-instances values --csv --page raw $PROF > $OUT/opcodes.csv 2> $OUT/opcodes.err
echo "opcodes rc=$?"; wc -l $OUT/opcodes.csv; tail -2 $OUT/opcodes.err | cut -c1-300
timeout 240 /usr/local/cuda/bin/ncu --nvtx --nvtx-include "kiln_profile/" --clock-control none --set full \
  --import-source yes -o $OUT/prof $PROF > $OUT/full.log 2>&1
echo "full rc=$?"; tail -2 $OUT/full.log | cut -c1-300
/usr/local/cuda/bin/ncu --import $OUT/prof.ncu-rep --page source --csv --print-source sass > $OUT/sass.csv 2> $OUT/sass.err
echo "sass rc=$?"; wc -c $OUT/sass.csv; head -c 600 $OUT/sass.err
xz -T0 $OUT/sass.csv; ls -la $OUT
return_new_cache
