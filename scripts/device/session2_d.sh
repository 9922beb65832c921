#!/usr/bin/env bash
# Device run D (nvidia-h200): host overhead per launch, the timing-stability test, then the BERT
# encoder layer and ResNet-50 bottleneck examples end to end through `kiln serve`.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null)
KILN_DATA_DIR=/tmp/kiln timeout 90 python3 -m bench.launch_overhead --calls 5000 --out $OUT/overhead.json 2>&1 | tail -9
KILN_DATA_DIR=/tmp/kiln timeout 90 python3 -m pytest tests/gpu/test_gpu_tuning.py -k timed_twice -q -o addopts="" -p no:cacheprovider 2>&1 | tail -2
EXAMPLE_TIMEOUT=240 bash scripts/device/run_examples.sh
