#!/usr/bin/env bash
# Session 4, run C (one nvidia-h200-x2 call, ~6 min), every kernel compiled on the CPU host first
# (.devcarry/fleet-cache.txz: the suite's 16 variants per shape and bench.gemm_pairs' grid;
# .devcarry/cache.tgz: what the GPU tests build):
#  1. issue 7's fleet run again, now that each worker keeps one GPU measurement process across jobs
#     and the clock starts once the workers have registered: one worker, then two;
#  2. the GPU tests of the tuning step (two jobs through one measurement process) and the runtime;
#  3. bench.gemm_pairs: near-neighbour configs (epilogue schedule × cluster per tile) on the shapes
#     furthest below cuBLAS.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null) KILN_DATA_DIR=/tmp/kiln
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
mkdir -p /tmp/kiln-fleet /tmp/kiln && tar xzf .devcarry/cache.tgz -C /tmp/kiln
python3 -c "import tarfile; tarfile.open('.devcarry/fleet-cache.txz').extractall('/tmp/kiln-fleet')" || exit 1
ls /tmp/kiln-fleet/compile-cache | wc -l
DB=$(bash scripts/device/start_postgres.sh 5432) || exit 1
timeout 300 python3 -m bench.fleet --suite .devcarry/suite.json --db $DB --limit 16 --data-dir /tmp/kiln-fleet \
  --prefill --gpus 0 --gpus 0,1 --out $OUT/fleet.json > $OUT/fleet.log 2>&1; echo "fleet rc=$?"
grep -v '"fleet"' $OUT/fleet.log | head -c 600; echo
timeout 90 python3 -m pytest tests/gpu/test_gpu_tuning.py tests/gpu/test_torch_runtime.py -m gpu -q -o addopts="" \
  -p no:cacheprovider -rA > $OUT/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "PASSED|FAILED|ERROR|passed|failed" $OUT/gpu_tests.log | tail -20
KILN_DATA_DIR=/tmp/kiln-fleet timeout 70 python3 -m bench.gemm_pairs --out $OUT/gemm_pairs.json > $OUT/gemm_pairs.log 2>&1
echo "pairs rc=$?"; tail -70 $OUT/gemm_pairs.log | cut -c1-130
