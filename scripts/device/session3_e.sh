#!/usr/bin/env bash
# Session 3, run E (one nvidia-h200 call, ~1 min): the decode GEMMs again, now that stream-K split
# counts of swapped-operand kernels are judged in the kernel's own frame (timed at launch time).
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null) KILN_DATA_DIR=/tmp/kiln
mkdir -p /tmp/kiln && tar xzf .devcarry/cache.tgz -C /tmp/kiln
timeout 110 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 12 --warm 0 \
  --only decode.m16 decode.m64 decode.m128 --out $OUT/gemm_decode.json > $OUT/gemm_decode.log 2>&1
echo "gemm decode rc=$?"; tail -6 $OUT/gemm_decode.log
