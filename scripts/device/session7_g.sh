#!/usr/bin/env bash
# Session 7, run G (nvidia-h200, ~4 min): the fold kernel walks channels incrementally, one
# thread per output pixel (run E's version, one division chain per element, took 24.3 µs on the
# stem's input). Rebuild the GPU tests' sm90 convs, run the conv GPU tests, then the stem again.
set -u
source scripts/device/prelude.sh
timeout 150 python3 scripts/device/prefill_gpu_tests.py > $OUT/prefill.log 2>&1; echo "prefill rc=$?"; grep FAIL $OUT/prefill.log | head
timeout 60 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_conv_gpu.py -m gpu > $OUT/gpu_conv_tests.log 2>&1
echo "gpu conv tests rc=$?"; tail -3 $OUT/gpu_conv_tests.log | cut -c1-300
timeout 120 python3 -m bench.conv_suite --suite .devcarry/suite.json --only r50.conv1 --limit 8 --out $OUT/conv_stem.json > $OUT/conv_stem.log 2>&1
echo "stem rc=$?"; grep -v '^{' $OUT/conv_stem.log | tail -6 | cut -c1-160
