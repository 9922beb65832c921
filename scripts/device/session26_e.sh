#!/usr/bin/env bash
# Session 26, run E (nvidia-h200, ~2 min): whether the L2 promotion the TMA descriptors carry changes
# the extra L2 requests run D found under CUTLASS's 1x2 multicast: square.1024's 128x64 single kernel
# under 1x2 at promotions 0, 64 and 256 (run D had the default 128) and its 1x1 twin at 0, each
# beside nvjet (Nsight Compute's full set, scripts/device/session26_e_square_l2.json).
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
PROF="python3 -m bench.kernel_profile --result scripts/device/session26_e_square_l2.json"
timeout 400 /usr/local/cuda/bin/ncu --nvtx --nvtx-include "kiln_profile/" --clock-control none --set full \
  -o $OUT/prof $PROF > $OUT/ncu.log 2>&1
echo "full rc=$?"; tail -3 $OUT/ncu.log | cut -c1-300
/usr/local/cuda/bin/ncu --import $OUT/prof.ncu-rep --page raw --csv > $OUT/raw.csv 2>> $OUT/ncu.log
/usr/local/cuda/bin/ncu --import $OUT/prof.ncu-rep --page details --csv > $OUT/details.csv 2>> $OUT/ncu.log
wc -c $OUT/raw.csv $OUT/details.csv
xz -T0 $OUT/raw.csv $OUT/details.csv; rm -f $OUT/prof.ncu-rep; ls -la $OUT
