#!/usr/bin/env bash
# Session 7, run D (nvidia-h200, ~4 min): the whole conv suite with Kiln's persistent sm90 convs and
# the folded stem in the search, every variant compiled in runs A-C (cache carried); the stem's
# input fold is timed as well (`input_transform_us`).
set -u
source scripts/device/prelude.sh
timeout 100 python3 -m service.cli.main compile --file .devcarry/conv_problems.json --arch sm_90a --limit 8 --jobs 16 \
  > $OUT/compile.log 2>&1; echo "compile rc=$?"; tail -1 $OUT/compile.log | cut -c1-200
timeout 300 python3 -m bench.conv_suite --suite .devcarry/suite.json --limit 8 --out $OUT/conv2d.json > $OUT/conv2d.log 2>&1
echo "conv rc=$?"; grep -v '^{' $OUT/conv2d.log | tail -20 | cut -c1-160
