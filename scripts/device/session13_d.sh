#!/usr/bin/env bash
# Session 13, run D (nvidia-h200, ~3 min): why Kiln's weight-streaming decode kernel (runs A-C)
# stays at ~2.2 TB/s on decode.m16 and 2x behind CUTLASS on decode.m64. Nsight Compute (full set)
# on one launch each of its best config and CUTLASS's swapped winner per shape, cuBLAS's kernels and
# a device copy of the same bytes (the memory roofline), from scripts/device/profile_rows_skinny.json.
set -u
source scripts/device/prelude.sh
PROF="python3 -m bench.kernel_profile --result scripts/device/profile_rows_skinny.json"
timeout 240 /usr/local/cuda/bin/ncu --nvtx --nvtx-include "kiln_profile/" --clock-control none --set full \
  -o /tmp/skinny_prof $PROF > $OUT/prof.log 2>&1
echo "profile rc=$?"; tail -3 $OUT/prof.log | cut -c1-200
/usr/local/cuda/bin/ncu --import /tmp/skinny_prof.ncu-rep --page details --csv > $OUT/skinny_details.csv 2>> $OUT/prof.log
/usr/local/cuda/bin/ncu --import /tmp/skinny_prof.ncu-rep --page raw --csv --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,lts__t_bytes.sum,launch__registers_per_thread,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum \
  | grep -v '^==' | cut -c1-600 | tee $OUT/skinny_raw.csv
grep -E '"(Stall|Warp Cycles Per Issued|Issue Slots Busy|Achieved Occupancy|Theoretical Occupancy|Block Limit|Memory Throughput|DRAM Throughput|L2 Hit|Mem Busy|Max Bandwidth)' $OUT/skinny_details.csv | cut -d, -f5,13- | cut -c1-160 | head -120
xz -T0 $OUT/skinny_details.csv
return_new_cache
