#!/usr/bin/env bash
# Session 20, run B (nvidia-h200, ~9 min): the full GEMM suite search, first half (`kiln bench gemm
# --limit 16`, no replay: each shape's 16 ranked cubins and their launch-time variants, leader twins,
# interleaved re-time against cuBLAS/cuBLASLt). Most cubins were compiled on the CPU host
# (scripts/device/prefill_suite_search.py); the rest compile here on 16 cores first, in one batch, so
# each shape's tuning time is its warm time (compiled_fresh says what a shape compiled itself).
set -u
source scripts/device/prelude.sh
suite_search "bert-base.qkv bert-base.attn_out bert-base.ffn1 bert-base.ffn2 bert-large.qkv bert-large.attn_out bert-large.ffn1 bert-large.ffn2 llama7b.qkv" 500
return_new_cache
