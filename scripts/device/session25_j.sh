#!/usr/bin/env bash
# Session 25, run J (nvidia-h200, ~2 min): the phase clock with a stamp at load_init (CUTLASS's
# barriers initialized, before the cluster wait, the scheduler's first tile and the wait on the
# previous grid), on persistent and single-consumer winners; then the phase clock's GPU tests.
set -u
source scripts/device/prelude.sh
timeout 300 python3 -m bench.phase_clock --result bench/results/gemm_h200_20261204_session24_b_search.json \
  --only llama7b.o_proj bert-large.attn_out bert-base.attn_out square.1024 decode.m128 --out $OUT/phase_clock.json \
  > $OUT/phase_clock.log 2>&1
echo "phase clock rc=$?"; grep -v '^{' $OUT/phase_clock.log | cut -c1-320 | tail -10
timeout 150 python3 -m pytest -q -p no:cacheprovider -rA tests/gpu/test_gpu_tuning.py -m gpu -k phase_clock \
  > $OUT/gpu_tests_phase_clock.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests_phase_clock.log | tail -12 | cut -c1-250
return_new_cache
