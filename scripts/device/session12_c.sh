#!/usr/bin/env bash
# Session 12, run C (nvidia-h200, ~8 min): the conv suite searched at this commit (limit 8), the
# beta-free sm90 epilogues in every candidate; what the CPU host had not compiled is compiled on
# the GPU host's 16 cores inside the run (the tuning step's own compile), and sent back.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 480 python3 -m bench.conv_suite --suite .devcarry/suite.json --limit 8 --out $OUT/conv2d.json > $OUT/conv2d.log 2>&1
echo "conv rc=$?"; grep -v '^{' $OUT/conv2d.log | tail -20 | cut -c1-150
return_new_cache
