#!/usr/bin/env bash
# Session 7, run H (nvidia-h200, ~5 min): 64-wide TMA-epilogue subtiles for store-bound problems
# (rule wide_epilogue_for_stores: the pointwise convs and res3's strided 1x1), twins of the
# automatic 32-wide ones. Compile the four affected layers' selections (16 cores) and time them
# against cuDNN: does the store path bound these memory-bound layers?
set -u
source scripts/device/prelude.sh
timeout 200 python3 -m service.cli.main compile --file .devcarry/conv_store_bound.json --arch sm_90a --limit 8 --jobs 16 \
  > $OUT/compile.log 2>&1; echo "compile rc=$?"; tail -1 $OUT/compile.log | cut -c1-200
timeout 120 python3 -m bench.conv_suite --suite .devcarry/suite.json --only r50.res2.1x1a r50.res2.1x1b r50.res3.down r50.res3.1x1b \
  --limit 8 --out $OUT/conv_store_bound.json > $OUT/conv.log 2>&1
echo "conv rc=$?"; grep -v '^{' $OUT/conv.log | tail -9 | cut -c1-160
