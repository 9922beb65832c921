#!/usr/bin/env bash
# Device run C (nvidia-h200): every GPU test, the Conv2d suite (pointwise convs now compete with
# the sm90 GEMM kernels), and the host overhead per launch.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD KILN_DATA_DIR=/tmp/kiln PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null)
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
timeout 220 python3 -m pytest tests/gpu -m gpu -q -o addopts="" -p no:cacheprovider -rA > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|FAILED|Error" $OUT/gpu_tests.log | tail -8
timeout 60 python3 -m bench.launch_overhead --calls 5000 --out $OUT/overhead.json 2>&1 | tail -8
timeout 300 python3 -m bench.conv_suite --suite .devcarry/suite.json --limit 8 --out $OUT/conv2d_suite.json > $OUT/conv2d_suite.log 2>&1
echo "conv suite rc=$?"; tail -18 $OUT/conv2d_suite.log
