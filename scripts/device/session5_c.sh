#!/usr/bin/env bash
# Session 5, run C (nvidia-h200, ~7 min), the CPU host's compile cache carried (.devcarry/fleet-cache.txz),
# whatever else is needed compiled here on 16 cores:
#  1. every GPU test (the conv runtime now packs its launch arguments through the tuple-keyed memo);
#  2. the BERT-base encoder layer example, eager and from a CUDA graph, with the faster checked call;
#  3. bert-base.ffn1 with and without its bias+GELU epilogue (`--twins`): the cost of fusing it
#     under the re-fitted ranking.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null) KILN_DATA_DIR=$PWD/.fleet-data
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
mkdir -p .fleet-data && python3 -c "import tarfile; tarfile.open('.devcarry/fleet-cache.txz').extractall('.fleet-data')" || exit 1
timeout 300 python3 -m pytest tests/gpu -m gpu -q -o addopts="" -p no:cacheprovider -rA > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "FAILED|ERROR|passed|failed|overhead" $OUT/gpu_tests.log | tail -8
EXAMPLES=bert_encoder_layer KILN_PORT=8797 EXAMPLE_TIMEOUT=150 timeout 200 bash scripts/device/run_examples.sh 2>&1 | tail -4
timeout 150 python3 -m bench.gemm_suite --suite .devcarry/suite.json --only bert-base.ffn1 --twins --limit 16 --warm 0 \
  --out $OUT/twins.json > $OUT/twins.log 2>&1; echo "twins rc=$?"; grep -v '^{' $OUT/twins.log | tail -4 | cut -c1-150
