#!/usr/bin/env bash
# Session 7, run C (nvidia-h200, ~8 min): the stem folded space-to-depth (sm90 kernels with 16-deep
# K tiles) joins the search. Compile what the conv suite and the GPU tests now select (16 cores,
# runs A-B's cache carried), every GPU test, then the stem alone through the suite's code path.
set -u
source scripts/device/prelude.sh
timeout 200 python3 -m service.cli.main compile --file .devcarry/conv_problems.json --arch sm_90a --limit 8 --jobs 16 \
  > $OUT/compile.log 2>&1; echo "compile rc=$?"; tail -2 $OUT/compile.log | cut -c1-200
timeout 120 python3 scripts/device/prefill_gpu_tests.py > $OUT/prefill.log 2>&1; echo "prefill rc=$?"; grep FAIL $OUT/prefill.log | head
tar -I 'xz -T0 -1' -cf $OUT/cache.txz -C .fleet-data --exclude=compile-cache/pch --exclude=compile-cache/locks compile-cache
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/gpu -m gpu > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; tail -4 $OUT/gpu_tests.log | cut -c1-300
timeout 60 python3 -m bench.conv_suite --suite .devcarry/suite.json --only r50.conv1 --limit 8 --out $OUT/conv_stem.json > $OUT/conv_stem.log 2>&1
echo "stem rc=$?"; grep -v '^{' $OUT/conv_stem.log | tail -5 | cut -c1-160
