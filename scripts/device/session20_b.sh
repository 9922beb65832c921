#!/usr/bin/env bash
# Session 20, run B (nvidia-h200, ~9 min): the full GEMM suite search, the six shapes run A left (as
# run A), then every GPU test at this commit.
set -u
source scripts/device/prelude.sh
suite_search "decode.m16 decode.m64 decode.m128 square.1024 square.8192 bf16.llama7b.up" 330
all_gpu_tests 150 200
return_new_cache
