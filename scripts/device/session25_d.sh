#!/usr/bin/env bash
# Session 25, run D (nvidia-h200, ~4 min): the phase clock (bench/phase_clock.py) on session 24 run B's
# winners of the shapes below 1.0 and two above, then its GPU tests.
set -u
source scripts/device/prelude.sh
timeout 400 python3 -m bench.phase_clock --result bench/results/gemm_h200_20261204_session24_b_search.json \
  --only llama7b.o_proj llama7b.down bert-large.ffn2 bert-large.attn_out bert-base.attn_out square.1024 \
  bert-large.qkv decode.m128 --out $OUT/phase_clock.json > $OUT/phase_clock.log 2>&1
echo "phase clock rc=$?"; grep -v '^{' $OUT/phase_clock.log | cut -c1-260 | tail -20
timeout 150 python3 -m pytest -q -p no:cacheprovider -rA tests/gpu/test_gpu_tuning.py -m gpu -k phase_clock \
  > $OUT/gpu_tests_phase_clock.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests_phase_clock.log | tail -12 | cut -c1-250
return_new_cache
