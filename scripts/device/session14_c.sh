#!/usr/bin/env bash
# Session 14, run C (nvidia-h200, ~6 min): the weight-streaming kernel's sixth version (W straight
# from HBM into mma.sync's A registers, the way bench.stream_floor's fastest read streams; no
# shared-memory ring): every GPU test at this commit (its verification at tile edges, and session
# 13's launcher/selection refactor, which had not run on a GPU), then `kiln bench pairs --skinny`
# (every config the rules keep for the decode shapes, beside cuBLAS in the same process).
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 300 python3 -m pytest -q -p no:cacheprovider tests/gpu -m gpu > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | head -12 | cut -c1-250
timeout 240 python3 -m bench.gemm_pairs --skinny --out $OUT/skinny_pairs.json > $OUT/pairs.log 2>&1
echo "pairs rc=$?"; for s in decode.m16 decode.m64 decode.m128 decode.m16.bias_gelu; do grep "^$s " $OUT/pairs.log | head -5 | cut -c1-150; done
grep -v "timed" $OUT/pairs.log | grep -v '^{' | tail -5 | cut -c1-300
xz -T0 $OUT/pairs.log
return_new_cache
