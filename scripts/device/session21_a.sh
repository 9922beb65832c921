#!/usr/bin/env bash
# Session 21, run A (nvidia-h200, ~9 min): (1) the per-warp-store GPU tests, the swapped bias and SiLU
# kernels' first run on a GPU; (2) scripts/device/session21_a.py: decode winners beside their 2x1/4x1
# activation-multicast twins and cuBLAS's 64x96 tiling; (3) a search of the three fused shapes with
# the swapped per-warp-store kernels in the space; (4) bert-base.ffn1's fusion cost on that pick.
set -u
source scripts/device/prelude.sh
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_tuning.py -m gpu -k "warp_store" \
  > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | tail -6 | cut -c1-200
timeout 150 python3 scripts/device/session21_a.py $OUT/decode_multicast.json > $OUT/decode_multicast.log 2>&1
echo "decode rc=$?"; grep -v '^{' $OUT/decode_multicast.log | cut -c1-150 | tail -24
suite_search "bert-base.ffn1 bert-large.ffn1 llama7b.up" 150
timeout 100 python3 scripts/device/session21_b.py $OUT/gemm_search.json $OUT/ffn1_fusion.json > $OUT/ffn1_fusion.log 2>&1
echo "fusion rc=$?"; grep -v '^{' $OUT/ffn1_fusion.log | cut -c1-140 | tail -12
return_new_cache
