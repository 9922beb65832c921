#!/usr/bin/env bash
# Session 3, run A (one nvidia-h200 call, ~7 min). Logs go to $OUT as each step ends.
#  1. `kiln bench overhead`, fixed to time the host only (short rounds, a kernel shorter than a launch);
#  2. the torch runtime GPU tests after the per-call path changes (raw stream, prepared-shape fast path);
#  3. the BERT example, its GEMM variants precompiled on the CPU host and carried (.devcarry/cache.tgz);
#  4. a wider GEMM search (32 variants) on the shapes furthest below cuBLAS: decode and square.1024.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null)
mkdir -p /tmp/kiln /tmp/kiln-examples
[ -f .devcarry/cache.tgz ] && tar xzf .devcarry/cache.tgz -C /tmp/kiln && tar xzf .devcarry/cache.tgz -C /tmp/kiln-examples
export KILN_DATA_DIR=/tmp/kiln
timeout 120 python3 -m bench.launch_overhead --out $OUT/overhead.json > $OUT/overhead.log 2>&1; echo "overhead rc=$?"
timeout 150 python3 -m pytest tests/gpu/test_torch_runtime.py -m gpu -q -s -o addopts="" -p no:cacheprovider -rA > $OUT/runtime_tests.log 2>&1
echo "runtime tests rc=$?"; grep -E "passed|failed|host overhead" $OUT/runtime_tests.log | tail -4
KILN_DATA_DIR=/tmp/kiln-examples EXAMPLES=bert_encoder_layer EXAMPLE_TIMEOUT=150 bash scripts/device/run_examples.sh > $OUT/examples.log 2>&1
tail -3 $OUT/examples.log
timeout 280 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 32 \
  --only decode.m16 decode.m64 decode.m128 square.1024 --out $OUT/gemm_wide.json > $OUT/gemm_wide.log 2>&1
echo "gemm wide rc=$?"; tail -12 $OUT/gemm_wide.log
