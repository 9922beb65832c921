#!/usr/bin/env bash
# Session 3, run D (one nvidia-h200 call, ~3 min). Logs go to $OUT as each step ends.
#  1. swapped-operand decode kernels (D^T = W·x^T) against F.linear through KilnGemm, three epilogues;
#  2. `kiln bench overhead` with the rounds of every path interleaved;
#  3. the decode GEMMs with swapped-operand variants in the search (precompiled: .devcarry/cache.tgz).
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null) KILN_DATA_DIR=/tmp/kiln
mkdir -p /tmp/kiln && tar xzf .devcarry/cache.tgz -C /tmp/kiln
timeout 90 python3 -m pytest tests/gpu/test_torch_runtime.py -k "swapped or both_launch_paths" \
  -m gpu -q -s -o addopts="" -p no:cacheprovider -rA > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|Error" $OUT/gpu_tests.log | tail -6
timeout 50 python3 -m bench.launch_overhead --out $OUT/overhead.json > $OUT/overhead.log 2>&1; echo "overhead rc=$?"; tail -12 $OUT/overhead.log
timeout 120 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 12 --warm 0 \
  --only decode.m16 decode.m64 decode.m128 --out $OUT/gemm_decode.json > $OUT/gemm_decode.log 2>&1
echo "gemm decode rc=$?"; tail -6 $OUT/gemm_decode.log
