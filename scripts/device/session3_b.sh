#!/usr/bin/env bash
# Session 3, run B (one nvidia-h200 call, ~6 min). Logs go to $OUT as each step ends.
#  1. `kiln bench overhead` after the per-call path rewrite (one checked-address helper per operand);
#  2. the torch runtime GPU tests again (that rewrite, eager KilnLinear without the custom op's dispatch);
#  3. the BERT example, eager and CUDA-graph timings (variants precompiled on the CPU host: .devcarry/cache.tgz);
#  4. the experimental SM90 TMA-im2col conv in the search on the 3x3 layers (precompiled too).
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null)
mkdir -p /tmp/kiln /tmp/kiln-examples
tar xzf .devcarry/cache.tgz -C /tmp/kiln && tar xzf .devcarry/cache.tgz -C /tmp/kiln-examples
export KILN_DATA_DIR=/tmp/kiln
timeout 90 python3 -m bench.launch_overhead --out $OUT/overhead.json > $OUT/overhead.log 2>&1; echo "overhead rc=$?"
timeout 120 python3 -m pytest tests/gpu/test_torch_runtime.py -m gpu -q -s -o addopts="" -p no:cacheprovider -rA > $OUT/runtime_tests.log 2>&1
echo "runtime tests rc=$?"; grep -E "passed|failed|host overhead" $OUT/runtime_tests.log | tail -4
KILN_DATA_DIR=/tmp/kiln-examples EXAMPLES=bert_encoder_layer EXAMPLE_TIMEOUT=120 bash scripts/device/run_examples.sh > $OUT/examples.log 2>&1
tail -2 $OUT/examples.log
KILN_EXPERIMENTAL_SM90_CONV=1 timeout 200 python3 -m bench.conv_suite --suite .devcarry/suite.json --limit 8 \
  --only r50.res2.3x3 r50.res3.3x3 r50.res4.3x3 bolt.conv_bias_hardswish --out $OUT/conv2d_sm90.json > $OUT/conv.log 2>&1
echo "conv rc=$?"; tail -9 $OUT/conv.log
