#!/usr/bin/env bash
# Session 25, run H (nvidia-h200, ~9 min): compile on the GPU host what the carried cache lacks for
# the GPU tests (scripts/device/prefill_gpu_tests.py) and hand it back; run I then runs them all.
set -u
source scripts/device/prelude.sh
timeout 540 python3 scripts/device/prefill_gpu_tests.py > $OUT/prefill.log 2>&1
echo "prefill rc=$? ok=$(grep -c '^ok' $OUT/prefill.log)"; grep -E "^FAIL|Error" $OUT/prefill.log | head -5 | cut -c1-200
return_new_cache
