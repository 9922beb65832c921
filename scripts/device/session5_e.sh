#!/usr/bin/env bash
# Session 5, run E (nvidia-h200, ~1.5 min; the last of the session's device time): decode.m128 under
# cuBLAS's own tile (128x64, K tile 64) with every cluster x epilogue schedule pairing, stream-K
# with its launch-time splits (`python -m bench.gemm_pairs --decode`), compiled on the CPU host.
# Does a 1x2 cluster (the A tile multicast to two CTAs, as cuBLAS's nvjet kernel does) break the
# 37.7 µs every Kiln kernel hit on that shape?
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null) KILN_DATA_DIR=$PWD/.fleet-data
mkdir -p .fleet-data && python3 -c "import tarfile; tarfile.open('.devcarry/probe-cache.txz').extractall('.fleet-data')" || exit 1
timeout 100 python3 -m bench.gemm_pairs --decode --out $OUT/decode_pairs.json > $OUT/decode_pairs.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/decode_pairs.log | tail -22 | cut -c1-140
