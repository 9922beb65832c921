#!/usr/bin/env bash
# Session 3, run C (one nvidia-h200 call, ~7 min). Logs go to $OUT as each step ends.
#  1. GPU tests of what changed: the torch runtime (ctypes launch now the default, both paths, a
#     2x1-cluster kernel through it) and the sm90 conv verification;
#  2. `kiln bench overhead` with the ctypes launch as the default;
#  3. the whole conv suite with the sm90 TMA-im2col kernels in the default search
#     (variants precompiled on the CPU host with `kiln compile --file`: .devcarry/cache.tgz);
#  4. the decode GEMMs with 2.x serial split-K slice counts as launch-time variants, and the
#     names of the kernels cuBLAS runs for them; bert-base.ffn1 with and without its bias+GELU (--twins).
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null) KILN_DATA_DIR=/tmp/kiln
mkdir -p /tmp/kiln && tar xzf .devcarry/cache.tgz -C /tmp/kiln
timeout 100 python3 -m pytest tests/gpu/test_torch_runtime.py "tests/gpu/test_conv_gpu.py::test_sm90_im2col_conv_verifies" \
  -m gpu -q -s -o addopts="" -p no:cacheprovider -rA > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|host overhead" $OUT/gpu_tests.log | tail -4
timeout 45 python3 -m bench.launch_overhead --out $OUT/overhead.json > $OUT/overhead.log 2>&1; echo "overhead rc=$?"; tail -12 $OUT/overhead.log
timeout 170 python3 -m bench.conv_suite --suite .devcarry/suite.json --limit 8 --out $OUT/conv2d.json > $OUT/conv.log 2>&1
echo "conv rc=$?"; tail -19 $OUT/conv.log
timeout 150 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 12 --warm 0 --twins \
  --only decode.m16 decode.m64 decode.m128 bert-base.ffn1 --out $OUT/gemm_decode.json > $OUT/gemm_decode.log 2>&1
echo "gemm decode rc=$?"; tail -6 $OUT/gemm_decode.log
