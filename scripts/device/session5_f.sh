#!/usr/bin/env bash
# Session 5, run F (nvidia-h200, ~1 min): decode.m128 through the ranking that now puts the TMA
# epilogue first on 64+-wide tiles of M = 128 problems (16 variants, compiled on the CPU host).
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null) KILN_DATA_DIR=$PWD/.fleet-data
mkdir -p .fleet-data && python3 -c "import tarfile; tarfile.open('.devcarry/probe-cache.txz').extractall('.fleet-data')" || exit 1
timeout 100 python3 -m bench.gemm_suite --suite .devcarry/suite.json --only decode.m128 --limit 16 --warm 0 \
  --out $OUT/m128.json > $OUT/m128.log 2>&1; echo "m128 rc=$?"; grep -v '^{' $OUT/m128.log | tail -4 | cut -c1-150
