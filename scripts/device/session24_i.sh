#!/usr/bin/env bash
# Session 24, run I (nvidia-h200, ~3 min): where the compute-bound shapes' last 1-2% goes. Nsight Compute
# (full set, SASS source) on run B's winners of llama7b.o_proj (256x128 cooperative 1x2: nvjet's own
# tile and cluster, 0.980x) and bert-large.attn_out (128x128 ping-pong, 0.984x), each beside the
# library's call (`kiln bench profile`); the SASS page comes back for `kiln bench sass-mix --diff`.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
PROF="python3 -m bench.kernel_profile --result bench/results/gemm_h200_20261204_session24_b_search.json --only llama7b.o_proj bert-large.attn_out"
timeout 300 /usr/local/cuda/bin/ncu --nvtx --nvtx-include "kiln_profile/" --clock-control none --set full \
  --import-source yes -o $OUT/prof $PROF > $OUT/ncu.log 2>&1
echo "full rc=$?"; tail -3 $OUT/ncu.log | cut -c1-300
/usr/local/cuda/bin/ncu --import $OUT/prof.ncu-rep --page raw --csv > $OUT/raw.csv 2>> $OUT/ncu.log
/usr/local/cuda/bin/ncu --import $OUT/prof.ncu-rep --page source --csv --print-source sass > $OUT/sass.csv 2>> $OUT/ncu.log
echo "sass rc=$?"; wc -c $OUT/sass.csv $OUT/raw.csv
python3 -m bench.sass_mix $OUT/sass.csv --top 12 2>&1 | head -80
xz -T0 $OUT/sass.csv $OUT/raw.csv; rm -f $OUT/prof.ncu-rep; ls -la $OUT
return_new_cache
