#!/usr/bin/env bash
# Session 4, run A (one nvidia-h200-x2 call, ~6 min). Logs go to $OUT as each step ends.
#  1. `kiln bench overhead`, rounds of every path interleaved, while the host is otherwise idle
#     (issue 5's last figure), before and after the tests;
#  2. the runtime and conv GPU tests, now that KilnGemm and KilnConv2d share ShapePrep.packed (both
#     launch paths, 2x1 cluster, swapped-operand kernels, SM90 conv through KilnConv2d); their
#     kernels were compiled on the CPU host by scripts/device/prefill_gpu_tests.py (.devcarry/cache.tgz);
#  3. every variant of the GEMM suite compiled on the host's cores for run B (issue 7's fleet run),
#     into .fleet-data/, which stays on the machine between calls while it is held. (As run, the
#     step passed --compile-cache .fleet-cc, which the workers never read: that flag is now --data-dir.)
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null) KILN_DATA_DIR=/tmp/kiln
mkdir -p /tmp/kiln && tar xzf .devcarry/cache.tgz -C /tmp/kiln
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader; nproc
timeout 60 python3 -m bench.launch_overhead --out $OUT/overhead.json > $OUT/overhead.log 2>&1; echo "overhead rc=$?"; tail -12 $OUT/overhead.log
timeout 240 python3 -m pytest tests/gpu/test_torch_runtime.py tests/gpu/test_conv_gpu.py \
  -m gpu -q -o addopts="" -p no:cacheprovider -rA > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "PASSED|FAILED|ERROR|passed|failed" $OUT/gpu_tests.log | tail -40
timeout 60 python3 -m bench.launch_overhead --out $OUT/overhead_2.json > $OUT/overhead_2.log 2>&1; echo "overhead 2 rc=$?"; tail -12 $OUT/overhead_2.log
DB=$(bash scripts/device/start_postgres.sh 5432) || exit 1
timeout 200 python3 -m bench.fleet --suite .devcarry/suite.json --db $DB --limit 16 --data-dir $PWD/.fleet-data \
  --prefill --out $OUT/prefill.json > $OUT/prefill.log 2>&1; echo "prefill rc=$?"; tail -c 600 $OUT/prefill.log
