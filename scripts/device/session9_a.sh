#!/usr/bin/env bash
# Session 9, run A (nvidia-h200, ~7 min):
#  1. first thing on the just-started GPU, the timing-stability test with the 8-20 s first settle
#     of a process (session8_f.sh, never run; runs 8D/8E failed it cold);
#  2. TMA-epilogue subtile stores in flight (`kiln bench pairs --stores`): each store-bound winner
#     with CUTLASS's 2 and with 4/8, cubins compiled on the CPU host and carried;
#  3. the conv suite's candidates compiled here on 16 cores for the next run (return_new_cache).
set -u
source scripts/device/prelude.sh
timeout 70 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_tuning.py -m gpu -k timed_twice > $OUT/stability.log 2>&1
echo "stability rc=$?"; grep -E "passed|failed|^E  " $OUT/stability.log | head -4 | cut -c1-200
timeout 150 python3 -m bench.gemm_pairs --stores --out $OUT/gemm_pairs_stores.json > $OUT/stores.log 2>&1
echo "stores rc=$?"; grep -v '^{' $OUT/stores.log | tail -24 | cut -c1-170
timeout 270 python3 -m service.cli.main compile --file .devcarry/conv_problems.json --arch sm_90a --limit 8 --jobs 16 \
  > $OUT/compile.log 2>&1; echo "compile rc=$?"; tail -2 $OUT/compile.log | cut -c1-200
return_new_cache
