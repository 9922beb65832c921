#!/usr/bin/env bash
# Session 5, run D (nvidia-h200, ~7 min): the whole Conv2d suite again (8 variants per layer,
# compiled here on 16 cores), now that pointwise convs draw their sm90 GEMM candidates from the
# re-fitted ranking (TMA epilogue first on wide tiles, stream-K fix-up charged).
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null) KILN_DATA_DIR=$PWD/.fleet-data
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
timeout 520 python3 -m bench.conv_suite --suite .devcarry/suite.json --limit 8 --out $OUT/conv2d.json > $OUT/conv.log 2>&1
echo "conv rc=$?"; grep -v '^{' $OUT/conv.log | tail -19 | cut -c1-160
