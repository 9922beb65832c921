#!/usr/bin/env bash
# Session 22, run D (nvidia-h200, ~8 min): the whole GEMM suite searched at this commit (`kiln bench
# gemm --limit 16`; what the carried cache lacks compiled here first), with cuBLAS's decode clusters
# in the space (runs B and C); then the decode-cluster GPU tests.
set -u
source scripts/device/prelude.sh
suite_search "bert-base.qkv bert-base.attn_out bert-base.ffn1 bert-base.ffn2 bert-large.qkv bert-large.attn_out bert-large.ffn1 bert-large.ffn2 llama7b.qkv llama7b.o_proj llama7b.up llama7b.down decode.m16 decode.m64 decode.m128 square.1024 square.8192 bf16.llama7b.up" 420
grep -v '^{' $OUT/search.log | tail -26 | head -8 | cut -c1-150
timeout 150 python3 scripts/device/prefill_gpu_tests.py > $OUT/prefill.log 2>&1; echo "prefill rc=$?"
timeout 90 python3 -m pytest -q -p no:cacheprovider -rA tests/gpu/test_gpu_tuning.py -m gpu -k "decode_cluster" > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | tail -6 | cut -c1-250
return_new_cache
