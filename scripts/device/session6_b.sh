#!/usr/bin/env bash
# Session 6, run B (right after run A, same warm nvidia-h200, ~5 min): every GPU test (the parallel
# split-K kernels' new ones among them), kernels compiled on a CPU host (prefill_gpu_tests.py).
set -u
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null) KILN_DATA_DIR=$PWD/.fleet-data
[ -d /tmp/site/fastapi ] || python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
[ -d .fleet-data/compile-cache ] || { mkdir -p .fleet-data; python3 -c "import tarfile; tarfile.open('.devcarry/cache.txz').extractall('.fleet-data')"; }
timeout 240 python3 scripts/device/prefill_gpu_tests.py > $OUT/prefill.log 2>&1; echo "prefill rc=$?"; grep -c '^ok' $OUT/prefill.log
timeout 330 python3 -m pytest -q -p no:cacheprovider tests/gpu -m gpu > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; tail -15 $OUT/gpu_tests.log
