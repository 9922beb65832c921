#!/usr/bin/env bash
# What is left to run on an H200 (written at the end of session 2; one call, ~9 min):
#  1. every GPU test, including the torch runtime after its refactor (ShapePrep, check_tensors) and
#     the experimental sm90 TMA-im2col conv verification;
#  2. the BERT example again (the per-call spec-key cost is fixed) and the ResNet block;
#  3. the conv suite with the sm90 conv kernels in the search.
# On nvidia-h200-x2 also: python3 -m bench.fleet --db "$(bash scripts/device/start_postgres.sh 5432)" \
#   --gpus 0 --gpus 0,1 --limit 16 --prefill --out $OUT/fleet.json   (the 1-vs-2-worker measurement)
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD KILN_DATA_DIR=/tmp/kiln PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null)
KILN_DATA_DIR=/tmp/kiln timeout 60 python3 -m bench.launch_overhead --calls 5000 --out $OUT/overhead.json 2>&1 | tail -12
timeout 240 python3 -m pytest tests/gpu -m gpu -q -o addopts="" -p no:cacheprovider -rA > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|FAILED" $OUT/gpu_tests.log | tail -8
EXAMPLE_TIMEOUT=150 bash scripts/device/run_examples.sh
KILN_EXPERIMENTAL_SM90_CONV=1 timeout 200 python3 -m bench.conv_suite --suite .devcarry/suite.json --limit 8 \
  --only r50.res2.3x3 r50.res3.3x3 r50.res4.3x3 r50.res5.3x3 bolt.conv_bias_hardswish --out $OUT/conv2d_sm90.json 2>&1 | tail -9
