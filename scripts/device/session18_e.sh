#!/usr/bin/env bash
# Session 18, run E (nvidia-h200, ~4 min): scripts/device/session18_e.py, swapped 128x192 tiles on
# bert-base.attn_out, qkv and ffn2 (cuBLAS's 192-row tiling, which unswapped CUTLASS kernels cannot
# build) beside each stored winner. The swapped kernels compile here, on the GPU host's 16 cores.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 330 python3 scripts/device/session18_e.py $OUT/swapped_192.json > $OUT/swapped_192.log 2>&1
echo "swapped rc=$?"; grep -v '^{' $OUT/swapped_192.log | cut -c1-150 | tail -32
return_new_cache
