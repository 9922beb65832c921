#!/usr/bin/env bash
# Session 26, run E (nvidia-h200, ~2 min): why square.1024's single-consumer kernels starve for data
# (session 25 run N: 52-69% of mma cycles waiting) and why a 1x2 multicast slows them where nvjet's
# 128x64_64x8_1x2 gains. Nsight Compute's full set on the 64x128 1x1 winner, the 128x64 1x1 and the
# 128x64 under 1x2 (scripts/device/session26_e_square_l2.json), each beside cuBLAS (`kiln bench profile`);
# the raw page comes back.
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
