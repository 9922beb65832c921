#!/usr/bin/env bash
# Session 5, run B (right after run A, same warm nvidia-h200, ~4 min): the whole GEMM suite through
# the re-fitted ranking (TMA epilogue first on wide tiles, stream-K paying for its fix-up, swapped
# and plain kernels of one tile kept apart), every variant already in .fleet-data's compile cache.
set -u
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null) KILN_DATA_DIR=$PWD/.fleet-data
ls .fleet-data/compile-cache | wc -l
timeout 420 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 1 --out $OUT/gemm.json > $OUT/gemm.log 2>&1
echo "gemm rc=$?"; grep -v '^{' $OUT/gemm.log | tail -24 | cut -c1-150
