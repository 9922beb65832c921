#!/usr/bin/env bash
# Session 18, run C (nvidia-h200, ~6 min), cubins compiled on the CPU host and carried:
# (The L2 prefetch this run timed lost on every shape and was taken out again after it; its code is
# at e6276d9: KernelConfig.l2_prefetch, templates/l2_prefetch_mainloop.cuh.j2.)
#  1. every GPU test at this commit (GELU, SiLU and sigmoid kernels now render Kiln's functors; the
#     cluster split-K template's two epilogue calls folded into one); prefill first compiles on the
#     GPU host's 16 cores whatever the carried cache lacks;
#  2. scripts/device/session18_c.py: bert-base.ffn1's fused winner beside its cooperative twins
#     (128x128 and nvjet's 256x128), each with and without the bias + GELU: does ping-pong's overlap
#     of the epilogue with the other warpgroup's wgmma make the fusion cost?
#  3. `kiln bench pairs --l2-prefetch`: every stored suite winner with and without the L2 prefetch of
#     its K blocks past the pipeline (templates/l2_prefetch_mainloop.cuh.j2): the one-wave shapes'
#     consumers wait on TMA data (session 12's profile of square.1024);
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
all_gpu_tests 200 200
timeout 150 python3 scripts/device/session18_c.py $OUT/ffn1_cooperative.json > $OUT/ffn1_cooperative.log 2>&1
echo "cooperative rc=$?"; grep -v '^{' $OUT/ffn1_cooperative.log | cut -c1-150 | tail -12
timeout 240 python3 -m bench.gemm_pairs --l2-prefetch --out $OUT/l2_prefetch.json > $OUT/l2_prefetch.log 2>&1
echo "l2 prefetch rc=$?"; grep -v '^{' $OUT/l2_prefetch.log | cut -c1-150 | tail -36
return_new_cache
