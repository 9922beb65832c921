#!/usr/bin/env bash
# Session 16, run A (nvidia-h200, ~9 min): four-CTA clusters (2x2, 4x1, 1x4) and the launcher's
# second build with the driver's co-resident cluster count; the per-warp epilogue without its dead
# counter. Compiles on the GPU host (16 cores: the CPU host's cache was empty this session) every
# GPU test's kernel and every kernel `kiln bench pairs --clusters` times, then runs every GPU test.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 400 python3 scripts/device/prefill_gpu_tests.py --cluster-pairs > $OUT/prefill.log 2>&1
echo "prefill rc=$? ok=$(grep -c '^ok' $OUT/prefill.log)"; grep -E "^FAIL|Error" $OUT/prefill.log | head -5 | cut -c1-200
timeout 160 python3 -m pytest -q -p no:cacheprovider -rA tests/gpu -m gpu > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | head -16 | cut -c1-250
