#!/usr/bin/env bash
# Device run B (nvidia-h200-x2): the fleet measurement. Compile every suite GEMM variant first
# (untimed; the conv GPU tests run on GPU 0 meanwhile), then tune the suite through a
# PostgreSQL-backed service with 1 worker, then with 2 workers (one per GPU), cache warm for both.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD KILN_DATA_DIR=/tmp/kiln PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null)
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
DB=$(bash scripts/device/start_postgres.sh 5432) || exit 1
CC=/tmp/kiln-fleet/compile-cache
python3 -m bench.fleet --suite .devcarry/suite.json --db "$DB" --limit 16 --prefill --compile-cache $CC \
  --out $OUT/prefill_b.json > $OUT/prefill_b.log 2>&1 &
pre=$!
timeout 240 python3 -m pytest tests/gpu/test_conv_gpu.py -m gpu -q -o addopts="" -p no:cacheprovider > $OUT/conv_gpu_tests.log 2>&1
echo "conv gpu tests rc=$?"; tail -4 $OUT/conv_gpu_tests.log
wait $pre; echo "prefill rc=$?"; grep prefill $OUT/prefill_b.log | tail -1
python3 -m bench.fleet --suite .devcarry/suite.json --db "$DB" --gpus 0 --gpus 0,1 --limit 16 --compile-cache $CC \
  --out $OUT/fleet_b.json > $OUT/fleet_b.log 2>&1
echo "fleet rc=$?"; grep -v '"fleet"' $OUT/fleet_b.log | tail -12
