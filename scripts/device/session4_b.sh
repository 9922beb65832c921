#!/usr/bin/env bash
# Session 4, run B (one nvidia-h200-x2 call right after run A, ~6 min): issue 7's fleet
# measurement, and with it the whole GEMM suite under the current search (16 variants per shape).
# The suite through `kiln serve` + PostgreSQL with one GPU worker, then two; a fresh database per
# run, one warm compile cache (.fleet-cc/ from run A; --prefill only tops it up), so the
# comparison is warm against warm. The file is rewritten after each run.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null) KILN_DATA_DIR=/tmp/kiln
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; ls .fleet-cc | wc -l
DB=$(bash scripts/device/start_postgres.sh 5432) || exit 1
timeout 560 python3 -m bench.fleet --suite .devcarry/suite.json --db $DB --limit 16 --compile-cache $PWD/.fleet-cc \
  --prefill --gpus 0 --gpus 0,1 --out $OUT/fleet.json > $OUT/fleet.log 2>&1; echo "fleet rc=$?"; tail -c 2500 $OUT/fleet.log
