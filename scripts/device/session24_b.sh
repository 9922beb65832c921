#!/usr/bin/env bash
# Session 24, run B (nvidia-h200, ~4 min): the whole GEMM suite searched at this commit (`kiln bench gemm
# --limit 16`) with the single-consumer kernel in the space of its one-round grids, every selection
# compiled on the CPU host first (`kiln compile --file .devcarry/gemm_problems.json --arch sm_90a --limit 16`).
set -u
source scripts/device/prelude.sh
suite_search "bert-base.qkv bert-base.attn_out bert-base.ffn1 bert-base.ffn2 bert-large.qkv bert-large.attn_out bert-large.ffn1 bert-large.ffn2 llama7b.qkv llama7b.o_proj llama7b.up llama7b.down decode.m16 decode.m64 decode.m128 square.1024 square.8192 bf16.llama7b.up" 420
grep -v '^{' $OUT/search.log | tail -26 | head -8 | cut -c1-150
return_new_cache
