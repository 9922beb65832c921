#!/usr/bin/env bash
# Session 25, run O (nvidia-h200, ~3 min): after the review's gpu_step.plan_epilogue refactor, the GPU
# tests that tune through GpuTuningStep (GEMM and conv), the phase clock's, and the phase clock on one
# fused winner (its Problem now built from the spec as the tuner builds it).
set -u
source scripts/device/prelude.sh
timeout 300 python3 -m pytest -q -p no:cacheprovider -rA tests/gpu -m gpu -k "tuning_step or phase_clock" \
  > $OUT/gpu_tests_review.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests_review.log | tail -12 | cut -c1-250
timeout 150 python3 -m bench.phase_clock --result bench/results/gemm_h200_20261204_session24_b_search.json \
  --only bert-base.ffn1 --out $OUT/phase_clock.json > $OUT/phase_clock.log 2>&1
echo "phase clock rc=$?"; grep -v '^{' $OUT/phase_clock.log | cut -c1-300 | tail -3
return_new_cache
