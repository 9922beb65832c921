#!/usr/bin/env bash
# Device run A (nvidia-h200-x2): GPU tests on GPU 0 while the conv suite tunes on GPU 1 and the
# CPUs compile every GEMM variant of the suite; then, with both GPUs idle again, the GEMM suite
# through a PostgreSQL-backed service with one worker per GPU. Everything lands in $OUT.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD KILN_DATA_DIR=/tmp/kiln PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null)
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
DB=$(bash scripts/device/start_postgres.sh 5432) || exit 1
echo "db: $DB"
CC=/tmp/kiln-fleet/compile-cache
python3 -m bench.fleet --suite .devcarry/suite.json --db "$DB" --limit 16 --prefill --compile-cache $CC \
  --out $OUT/prefill.json > $OUT/prefill.log 2>&1 &
pre=$!
python3 -m bench.conv_suite --suite .devcarry/suite.json --gpu 1 --limit 8 --out $OUT/conv2d_suite.json > $OUT/conv2d_suite.log 2>&1 &
conv=$!
timeout 300 python3 -m pytest tests/gpu -m gpu -q -o addopts="" -p no:cacheprovider > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; tail -8 $OUT/gpu_tests.log
wait $conv; echo "conv suite rc=$?"; tail -22 $OUT/conv2d_suite.log
wait $pre; echo "prefill rc=$?"; tail -3 $OUT/prefill.log
python3 -m bench.fleet --suite .devcarry/suite.json --db "$DB" --gpus 0,1 --limit 16 --compile-cache $CC \
  --out $OUT/fleet_a.json > $OUT/fleet_a.log 2>&1
echo "fleet rc=$?"; tail -30 $OUT/fleet_a.log
