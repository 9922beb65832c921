#!/usr/bin/env bash
# Session 6, run C (nvidia-h200, ~6 min): compile the whole GEMM suite's 16 variants per shape on
# the GPU host's 16 cores (decode kernels carried from run A), the launch overhead again after the
# per-call trims, the cache back in $OUT for run D (the suite itself, same warm machine).
set -u
source scripts/device/prelude.sh
timeout 90 python3 -m bench.launch_overhead --out $OUT/overhead.json > $OUT/overhead.log 2>&1
echo "overhead rc=$?"; tail -16 $OUT/overhead.log
timeout 420 python3 -m service.cli.main compile --file .devcarry/gemm_problems.json --arch sm_90a --limit 16 --jobs 16 \
  > $OUT/compile.log 2>&1; echo "compile rc=$?"; tail -4 $OUT/compile.log
ls .fleet-data/compile-cache | wc -l
tar cJf $OUT/cache.txz -C .fleet-data --exclude=compile-cache/pch --exclude=compile-cache/locks --exclude='*.tmp' --exclude='*.lock' compile-cache
