#!/usr/bin/env bash
# Session 5: the two calls made right after run C on the same warm nvidia-h200 (site-packages
# and .fleet-data still in place from session5_c.sh), exactly as run:
#  1. `kiln bench overhead` again on that (faster) host → overhead_h200_20261129_session5_second_host.json;
#  2. decode.m16, decode.m128 and square.1024 with 32 compiled variants each, compiled cold there
#     → gemm_h200_20261129_session5_limit32.json.
set -u
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit) KILN_DATA_DIR=$PWD/.fleet-data
timeout 90 python3 -m bench.launch_overhead --out $OUT/overhead.json > $OUT/overhead.log 2>&1; echo rc=$?; tail -15 $OUT/overhead.log
timeout 400 python3 -m bench.gemm_suite --suite .devcarry/suite.json --only decode.m16 decode.m128 square.1024 --limit 32 --warm 0 \
  --out $OUT/decode32.json > $OUT/decode32.log 2>&1; echo rc=$?; grep -v '^{' $OUT/decode32.log | tail -6 | cut -c1-150
