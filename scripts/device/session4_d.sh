#!/usr/bin/env bash
# Session 4, run D (never ran: too little device time was left to start a machine; see next_session.sh) (one nvidia-h200 call, ~2.5 min): the suite GEMMs whose 16-variant selection the
# re-fitted ranking model changed (TMA epilogue first on tiles 64+ wide, clusters once there are
# tiles to pair; from bench.gemm_pairs in run C), tuned again; every variant compiled on the CPU
# host (.devcarry/fleet-cache.txz). Then `kiln bench overhead` on this single-GPU host.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 KILN_GIT_COMMIT=$(cat .devcarry/commit 2>/dev/null) KILN_DATA_DIR=/tmp/kiln-fleet
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
mkdir -p /tmp/kiln-fleet && python3 -c "import tarfile; tarfile.open('.devcarry/fleet-cache.txz').extractall('/tmp/kiln-fleet')" || exit 1
timeout 110 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 0 --only bert-base.attn_out \
  bert-base.ffn2 bert-large.ffn2 square.1024 decode.m128 decode.m64 decode.m16 bert-large.attn_out bert-base.ffn1 \
  bert-large.ffn1 --out $OUT/gemm_refit.json > $OUT/gemm_refit.log 2>&1
echo "gemm rc=$?"; grep -v '^{' $OUT/gemm_refit.log | tail -16; grep '^{' $OUT/gemm_refit.log | cut -c1-220
timeout 45 python3 -m bench.launch_overhead --out $OUT/overhead.json > $OUT/overhead.log 2>&1; echo "overhead rc=$?"; tail -11 $OUT/overhead.log
