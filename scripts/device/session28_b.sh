#!/usr/bin/env bash
# Session 28, run B (nvidia-h200, ~5 min; written in session 28, whose device loans paused after run
# A): the weight's L2 prefetch. The GPU tests of the prefetching kernels first, then
# scripts/device/session28_b.py's interleaved pairs (each decode winner and llama7b.down beside its
# 8/16/32-k-tile prefetch twins, two turns), then Nsight Compute on decode.m128's winner and its
# 16-ahead twin (scripts/device/session28_b_profile.json) to see DRAM's share move, beside a plain
# reduction over the weight (kernel_profile's weight_read: what a streaming read reaches there).
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 240 python3 -m pytest -q -p no:cacheprovider -rA tests/gpu/test_gpu_tuning.py -m gpu -k "l2_prefetch" > $OUT/gpu_tests.log 2>&1
echo "prefetch gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | tail -8 | cut -c1-250
timeout 240 python3 scripts/device/session28_b.py $OUT/pairs.json > $OUT/pairs.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/pairs.log | cut -c1-170 | tail -40
ncu_profile scripts/device/session28_b_profile.json 200
return_new_cache
