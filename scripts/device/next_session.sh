#!/usr/bin/env bash
# What is left to run on GPUs (written at the end of session 5). Session 5 ran the whole suite
# through the re-fitted ranking (session5_a/b.sh), the overhead on single-GPU hosts, every GPU
# test and the conv suite; what a next session should measure once its code lands:
#  1. decode through "parallel" split-K (not generated yet: issue 4's next step), the suite's three
#     decode shapes with `kiln bench gemm --only decode.m16 decode.m64 decode.m128`;
#  2. the 2-CTA-cluster rule for decode (decode.m128's 1x2 variant ran 36.2 µs but is ranked out):
#     `python -m bench.gemm_pairs --decode` again after changing it, then the suite.
# Recipe that saves device minutes (session 5): compile on the GPU host's 16 cores into an ignored
# folder and send the cache back in $OUT, so the next call (or session) carries it instead of
# compiling again. On nvidia-h200, ~6 min:
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null) KILN_DATA_DIR=$PWD/.fleet-data
mkdir -p .fleet-data
[ -f .devcarry/fleet-cache.txz ] && python3 -c "import tarfile; tarfile.open('.devcarry/fleet-cache.txz').extractall('.fleet-data')"
timeout 300 python3 -m service.cli.main compile --file .devcarry/gemm_problems.json --arch sm_90a --limit 16 --jobs 16 \
  > $OUT/compile.log 2>&1; echo "compile rc=$?"
tar cJf $OUT/fleet-cache.txz -C .fleet-data --exclude=compile-cache/pch --exclude=compile-cache/locks compile-cache
timeout 240 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 0 --out $OUT/gemm.json > $OUT/gemm.log 2>&1
echo "gemm rc=$?"; grep -v '^{' $OUT/gemm.log | tail -24 | cut -c1-150
