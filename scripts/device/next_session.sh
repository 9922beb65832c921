#!/usr/bin/env bash
# What is left to run on GPUs (written at the end of session 4; run D below never ran: the
# session's device time ran out).
#  1. The whole GEMM suite through the re-fitted ranking model (TMA epilogue first on wide tiles of
#     non-decode problems): issue 4's figures. Compile on the CPU host first, then carry the cache:
#       KILN_DATA_DIR=/tmp/fleetdata kiln compile --file gemm_problems.json --arch sm_90a --limit 16
#       tar cJf .devcarry/fleet-cache.txz -C /tmp/fleetdata --exclude=compile-cache/pch --exclude=compile-cache/locks compile-cache
#     (gemm_problems.json: the suite's GEMMs as {"op": "gemm", m, n, k, dtype, epilogue}; ~45 min on 2 cores.)
#  2. `kiln bench overhead` (rounds interleaved) on a single-GPU host: issue 5's ≤ 10 µs figure has
#     only been met on fast hosts in sequential runs; interleaved it was 13.1–15.4 µs on slower hosts.
# On nvidia-h200, ~3 min:
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null) KILN_DATA_DIR=/tmp/kiln-fleet
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
mkdir -p /tmp/kiln-fleet && python3 -c "import tarfile; tarfile.open('.devcarry/fleet-cache.txz').extractall('/tmp/kiln-fleet')" || exit 1
timeout 60 python3 -m bench.launch_overhead --out $OUT/overhead.json > $OUT/overhead.log 2>&1; echo "overhead rc=$?"; tail -11 $OUT/overhead.log
timeout 300 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 0 --out $OUT/gemm.json > $OUT/gemm.log 2>&1
echo "gemm rc=$?"; grep -v '^{' $OUT/gemm.log | tail -24
