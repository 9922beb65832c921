#!/usr/bin/env bash
# Session 12, run D (nvidia-h200, ~6 min): the rest of run C (which ran out of its 480 s after 8 layers, each compiling its own candidates cold); the conv suite searched at this commit (limit 8), the
# beta-free sm90 epilogues in every candidate; what the CPU host had not compiled is compiled on
# the GPU host's 16 cores inside the run (the tuning step's own compile), and sent back.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 420 python3 -m bench.conv_suite --suite .devcarry/suite.json --limit 8 --only r50.res4.3x3 r50.res4.1x1b r50.res5.3x3 r50.res5.1x1c bolt.conv_bias_hardswish --out $OUT/conv2d.json > $OUT/conv2d.log 2>&1
echo "conv rc=$?"; grep -v '^{' $OUT/conv2d.log | tail -20 | cut -c1-150
rm -f $OUT/cache-new*; return_new_cache
