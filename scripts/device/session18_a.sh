#!/usr/bin/env bash
# Session 18, run A (nvidia-h200): where bert-base.ffn1's fusion cost (+11.4%, target <= 5%) goes,
# and whether Kiln's activation functors (templates/kiln_activation.cuh.j2) cut it.
#  0. the activation-math GPU tests (tests/gpu/test_gpu_tuning.py -k activation);
#  1. `kiln bench pairs --activation --turns 2`: each fused suite winner (bert-base.ffn1,
#     bert-large.ffn1, llama7b.up) under CUTLASS's functors, Kiln's tanh forms and Kiln's fp16 pairs,
#     then the same kernel with nothing, the bias alone and the activation alone; every candidate
#     verified first, each problem re-timed interleaved with the library.
#  2. ncu on bert-base.ffn1's kernel without an epilogue, with CUTLASS's bias+GELU and with the
#     packed one (scripts/device/profile_rows_session18.json): opcode mix and stall samples per
#     SASS instruction (`kiln bench sass-mix`).
# Cubins compiled on the CPU host and carried.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 120 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_tuning.py -m gpu -k activation > $OUT/gpu_tests.log 2>&1
echo "activation gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | head -12 | cut -c1-250
timeout 300 python3 -m bench.gemm_pairs --activation --turns 2 --out $OUT/activation.json > $OUT/activation.log 2>&1
echo "activation rc=$?"; grep -v '^{' $OUT/activation.log | cut -c1-160 | tail -40
PROF="python3 -m bench.kernel_profile --result scripts/device/profile_rows_session18.json"
timeout 200 /usr/local/cuda/bin/ncu --nvtx --nvtx-include "kiln_profile/" --clock-control none --set full \
  --import-source yes -o $OUT/prof $PROF >> $OUT/ncu.log 2>&1
echo "full rc=$?"; tail -3 $OUT/ncu.log | cut -c1-300
/usr/local/cuda/bin/ncu --import $OUT/prof.ncu-rep --page raw --csv > $OUT/raw.csv 2>> $OUT/ncu.log
/usr/local/cuda/bin/ncu --import $OUT/prof.ncu-rep --page source --csv --print-source sass > $OUT/sass.csv 2>> $OUT/ncu.log
echo "sass rc=$?"; wc -c $OUT/sass.csv $OUT/raw.csv
python3 -m bench.sass_mix $OUT/sass.csv --diff 3 0 --top 25 2>&1 | head -60
python3 -m bench.sass_mix $OUT/sass.csv --diff 6 3 --top 25 2>&1 | head -60
xz -T0 $OUT/sass.csv $OUT/raw.csv; rm -f $OUT/prof.ncu-rep.tmp; ls -la $OUT
return_new_cache
