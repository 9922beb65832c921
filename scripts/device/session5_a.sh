#!/usr/bin/env bash
# Session 5, run A (one nvidia-h200 call, ~7 min). Every kernel compiled on the CPU host first and
# carried in .devcarry/fleet-cache.txz (the suite's 16 variants per shape, the runtime tests' and
# the overhead bench's kernels):
#  1. `kiln bench overhead` on a single-GPU host, rounds interleaved, now with the bound call
#     (KilnGemm.bind) and the checks alone;
#  2. the runtime's GPU tests (bind, graph capture, both launch paths);
#  3. the whole GEMM suite through the re-fitted ranking (TMA epilogue first on wide tiles) and the
#     selection that keeps swapped and plain kernels of one tile apart (decode.m128).
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null) KILN_DATA_DIR=/tmp/kiln-fleet
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
mkdir -p /tmp/kiln-fleet && python3 -c "import tarfile; tarfile.open('.devcarry/fleet-cache.txz').extractall('/tmp/kiln-fleet')" || exit 1
ls /tmp/kiln-fleet/compile-cache | wc -l
timeout 90 python3 -m bench.launch_overhead --out $OUT/overhead.json > $OUT/overhead.log 2>&1; echo "overhead rc=$?"
tail -16 $OUT/overhead.log
timeout 90 python3 -m pytest tests/gpu/test_torch_runtime.py -m gpu -q -o addopts="" -p no:cacheprovider -rA \
  > $OUT/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "PASSED|FAILED|ERROR|passed|failed|overhead" $OUT/gpu_tests.log | tail -20
timeout 330 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 1 --out $OUT/gemm.json > $OUT/gemm.log 2>&1
echo "gemm rc=$?"; grep -v '^{' $OUT/gemm.log | tail -26 | cut -c1-160
