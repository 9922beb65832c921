#!/usr/bin/env bash
# Session 20, run A (nvidia-h200, ~8 min): the full GEMM suite search, first twelve shapes (`kiln bench
# gemm --limit 16`, no replay: each shape's 16 ranked cubins and their launch-time variants, leader
# twins, interleaved re-time against cuBLAS/cuBLASLt). Most cubins were compiled on the CPU host
# (`kiln compile --file .devcarry/gemm_problems.json --limit 16`); the rest compile here on 16 cores first, in one batch, so
# each shape's tuning time is its warm time, with its phase breakdown (row phase_seconds).
set -u
source scripts/device/prelude.sh
suite_search "bert-base.qkv bert-base.attn_out bert-base.ffn1 bert-base.ffn2 bert-large.qkv bert-large.attn_out bert-large.ffn1 bert-large.ffn2 llama7b.qkv llama7b.o_proj llama7b.up llama7b.down" 400
return_new_cache
