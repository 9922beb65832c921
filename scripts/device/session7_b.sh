#!/usr/bin/env bash
# Session 7, run B (nvidia-h200, ~9 min): compile the conv suite's variants (now with Kiln's
# persistent sm90 convs) on 16 cores, carried cache from run A, then the conv suite.
set -u
source scripts/device/prelude.sh
timeout 300 python3 -m service.cli.main compile --file .devcarry/conv_problems.json --arch sm_90a --limit 8 --jobs 16 \
  > $OUT/compile.log 2>&1; echo "compile rc=$?"; tail -3 $OUT/compile.log | cut -c1-200
tar -I 'xz -T0 -1' -cf $OUT/cache.txz -C .fleet-data --exclude=compile-cache/pch --exclude=compile-cache/locks compile-cache
timeout 250 python3 -m bench.conv_suite --suite .devcarry/suite.json --limit 8 --out $OUT/conv2d.json > $OUT/conv2d.log 2>&1
echo "conv rc=$?"; grep -v '^{' $OUT/conv2d.log | tail -18 | cut -c1-160
