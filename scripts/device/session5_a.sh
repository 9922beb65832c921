#!/usr/bin/env bash
# Session 5, run A (nvidia-h200, ~5 min). The suite's kernels were partly compiled on the CPU host
# (.devcarry/fleet-cache.txz); the rest compile here on 16 cores into .fleet-data (ignored, kept
# while the machine stays warm for run B):
#  1. `kiln compile --file` the suite's GEMMs, 16 variants each (what run B's suite will ask for);
#  2. `kiln bench overhead` on a single-GPU host, rounds interleaved, with the bound call
#     (KilnGemm.bind) and the checks alone;
#  3. the runtime's GPU tests (bind, bad inputs naming the operand, graph capture, both launch paths).
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null) KILN_DATA_DIR=$PWD/.fleet-data
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
mkdir -p .fleet-data && python3 -c "import tarfile; tarfile.open('.devcarry/fleet-cache.txz').extractall('.fleet-data')" || exit 1
ls .fleet-data/compile-cache | wc -l
t0=$(date +%s); timeout 300 python3 -m service.cli.main compile --file .devcarry/gemm_problems.json --arch sm_90a \
  --limit 16 --jobs 16 > $OUT/compile.log 2>&1; echo "compile rc=$? in $(( $(date +%s) - t0 )) s"
ls .fleet-data/compile-cache/*/*.cubin | wc -l
timeout 90 python3 -m bench.launch_overhead --out $OUT/overhead.json > $OUT/overhead.log 2>&1; echo "overhead rc=$?"
tail -16 $OUT/overhead.log
timeout 120 python3 -m pytest tests/gpu/test_torch_runtime.py -m gpu -q -o addopts="" -p no:cacheprovider -rA \
  > $OUT/gpu_tests.log 2>&1; echo "gpu tests rc=$?"; grep -E "PASSED|FAILED|ERROR|passed|failed|overhead" $OUT/gpu_tests.log | tail -20
