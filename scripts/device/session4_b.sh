#!/usr/bin/env bash
# Session 4, run B (one nvidia-h200-x2 call, ~6 min): issue 7's fleet measurement, and with it
# the whole GEMM suite under the current search (16 compiled variants per shape).
# Every variant was compiled on the CPU host first (`kiln compile --file gemm_problems.json
# --limit 16`, the workers' own selection) and arrives as .devcarry/fleet-cache.tgz; --prefill only
# confirms it is all hits. Then the suite through `kiln serve` + PostgreSQL with one GPU worker,
# then two; a fresh database per run, one warm compile cache, so the comparison is warm against
# warm. The file is rewritten after each run.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null) KILN_DATA_DIR=/tmp/kiln
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
mkdir -p /tmp/kiln-fleet && tar xzf .devcarry/fleet-cache.tgz -C /tmp/kiln-fleet
DB=$(bash scripts/device/start_postgres.sh 5432) || exit 1
timeout 540 python3 -m bench.fleet --suite .devcarry/suite.json --db $DB --limit 16 --data-dir /tmp/kiln-fleet \
  --prefill --gpus 0 --gpus 0,1 --out $OUT/fleet.json > $OUT/fleet.log 2>&1; echo "fleet rc=$?"
grep -v '"fleet"' $OUT/fleet.log | tail -c 3000
