#!/usr/bin/env bash
# Session 6, run A (nvidia-h200, ~7 min): the launch path's host time with the TensorGuards check
# (`kiln bench overhead`), then the suite's three decode shapes through parallel split-K. Every
# kernel was compiled on a CPU host and carried in .devcarry/cache.txz; what is missing compiles
# here on 16 cores, and the cache goes back in $OUT for the next call.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $OUT/gpu.txt
timeout 90 python3 -m bench.launch_overhead --out $OUT/overhead.json > $OUT/overhead.log 2>&1
echo "overhead rc=$?"; tail -16 $OUT/overhead.log
timeout 400 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 1 \
  --only decode.m16 decode.m64 decode.m128 --out $OUT/gemm_decode.json > $OUT/gemm_decode.log 2>&1
echo "gemm rc=$?"; grep -v '^{' $OUT/gemm_decode.log | tail -12 | cut -c1-160
tar cJf $OUT/cache.txz -C .fleet-data --exclude=compile-cache/pch --exclude=compile-cache/locks --exclude='*.tmp' --exclude='*.lock' compile-cache
