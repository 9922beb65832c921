#!/usr/bin/env bash
# Session 7, run E (nvidia-h200, ~8 min): sm90 conv cubins now carry their own input transform
# (kiln_fold_input: pad + space-to-depth in one pass), which the client helper launches. Every
# sm90 conv variant recompiles (16 cores), then every GPU test, then the whole conv suite, which
# times the client's input transform for the stem.
set -u
source scripts/device/prelude.sh
timeout 280 python3 -m service.cli.main compile --file .devcarry/conv_problems.json --arch sm_90a --limit 8 --jobs 16 \
  > $OUT/compile.log 2>&1; echo "compile rc=$?"; tail -1 $OUT/compile.log | cut -c1-200
timeout 100 python3 scripts/device/prefill_gpu_tests.py > $OUT/prefill.log 2>&1; echo "prefill rc=$?"; grep FAIL $OUT/prefill.log | head
tar -I 'xz -T0 -1' -cf $OUT/cache.txz -C .fleet-data --exclude=compile-cache/pch --exclude=compile-cache/locks compile-cache
timeout 100 python3 -m pytest -q -p no:cacheprovider tests/gpu -m gpu > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; tail -3 $OUT/gpu_tests.log | cut -c1-300
timeout 150 python3 -m bench.conv_suite --suite .devcarry/suite.json --limit 8 --out $OUT/conv2d.json > $OUT/conv2d.log 2>&1
echo "conv rc=$?"; grep -v '^{' $OUT/conv2d.log | tail -20 | cut -c1-160
