#!/usr/bin/env bash
# Session 11, run B (nvidia-h200, ~6 min), cubins compiled on the CPU host and carried:
#  1. `kiln bench conv-pairs`: CUTLASS 2.x conv kernels by CTAs per SM (cuDNN's own 2.x kernel for
#     res2.1x1a has 4 warps of 64x64 and two CTAs per SM; Kiln's 2.x candidates had 8 warps, one CTA
#     per SM, and ran 2x slower) against each layer's session-9 winner and cuDNN;
#  2. the conv suite at this commit (limit 8), for #5's conv-alone geomean.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 240 python3 -m bench.conv_pairs --suite .devcarry/suite.json --out $OUT/conv_pairs.json > $OUT/conv_pairs.log 2>&1
echo "conv pairs rc=$?"; grep -v '^{' $OUT/conv_pairs.log | cut -c1-150 | tail -90
timeout 200 python3 -m bench.conv_suite --suite .devcarry/suite.json --limit 8 --out $OUT/conv2d.json > $OUT/conv2d.log 2>&1
echo "conv rc=$?"; grep -v '^{' $OUT/conv2d.log | tail -17 | cut -c1-150
return_new_cache
