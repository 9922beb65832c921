#!/usr/bin/env bash
# What is left to run on GPUs (written at the end of session 3).
# On nvidia-h200 first (~2 min; issue 5's last measurement): the runtime GPU tests and
#   `python3 -m bench.launch_overhead --out $OUT/overhead.json` (rounds interleaved) on a normal host
#   instance; land the KilnConv2d launch-argument memo (reverted in 427c98e) with tests/gpu run on it.
# On nvidia-h200-x2 (issue 7's one remaining measurement, ~6 min with --prefill):
#   the suite's GEMMs tuned by one worker vs two against one PostgreSQL-backed service.
# Carry .whl with pgserver, psycopg and psycopg-binary added (session 3 left them out to save room).
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null)
nvidia-smi -L
timeout 560 python3 -m bench.fleet --suite .devcarry/suite.json --db "$(bash scripts/device/start_postgres.sh 5432)" \
  --gpus 0 --gpus 0,1 --limit 16 --prefill --out $OUT/fleet.json > $OUT/fleet.log 2>&1
echo "fleet rc=$?"; tail -20 $OUT/fleet.log
