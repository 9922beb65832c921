#!/usr/bin/env bash
# Session 6, run D (right after run C, same warm nvidia-h200, ~5 min): the whole GEMM suite, every
# variant already compiled by run C.
set -u
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null) KILN_DATA_DIR=$PWD/.fleet-data
[ -d /tmp/site/fastapi ] || python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
[ -d .fleet-data/compile-cache ] || { mkdir -p .fleet-data; python3 -c "import tarfile; tarfile.open('.devcarry/cache.txz').extractall('.fleet-data')"; }
ls .fleet-data/compile-cache | wc -l
timeout 540 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 1 --out $OUT/gemm.json > $OUT/gemm.log 2>&1
echo "gemm rc=$?"; grep -v '^{' $OUT/gemm.log | tail -24 | cut -c1-150
