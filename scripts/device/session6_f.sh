#!/usr/bin/env bash
# Session 6, run F (nvidia-h200, ~5 min): the whole GEMM suite again once the ranking charges
# 3-stage pipelines (128x128 tiles now lead with a 64-deep K tile: `kiln bench pairs --ktile`);
# the new variants compile here on 16 cores, the rest come from runs C-E's cache.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null) KILN_DATA_DIR=$PWD/.fleet-data
mkdir -p .fleet-data
[ -f .devcarry/cache.txz ] && python3 -c "import tarfile; tarfile.open('.devcarry/cache.txz').extractall('.fleet-data')"
timeout 240 python3 -m service.cli.main compile --file .devcarry/gemm_problems.json --arch sm_90a --limit 16 --jobs 16 \
  > $OUT/compile.log 2>&1; echo "compile rc=$?"; tail -2 $OUT/compile.log
timeout 300 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 1 --out $OUT/gemm.json > $OUT/gemm.log 2>&1
echo "gemm rc=$?"; grep -v '^{' $OUT/gemm.log | tail -24 | cut -c1-150
