#!/usr/bin/env bash
# Session 25, run N (nvidia-h200, ~2 min): the phase clock now counting each consumer's SM cycles
# spent waiting on a stage's data (its mma() is CUTLASS's own, copied, with clock64 around each
# wait): square.1024's single tiles under 1x1 and 1x2 (run M's configs) and two persistent
# winners; then the phase clock's GPU tests.
set -u
source scripts/device/prelude.sh
timeout 200 python3 -m bench.phase_clock --result scripts/device/session25_m_configs.json \
  --out $OUT/phase_clock_square.json > $OUT/phase_clock_square.log 2>&1
echo "phase clock rc=$?"; grep -v '^{' $OUT/phase_clock_square.log | cut -c1-340 | tail -8
timeout 150 python3 -m bench.phase_clock --result bench/results/gemm_h200_20261204_session24_b_search.json \
  --only llama7b.o_proj bert-large.attn_out --out $OUT/phase_clock.json > $OUT/phase_clock.log 2>&1
echo "phase clock rc=$?"; grep -v '^{' $OUT/phase_clock.log | cut -c1-340 | tail -4
timeout 120 python3 -m pytest -q -p no:cacheprovider -rA tests/gpu/test_gpu_tuning.py -m gpu -k phase_clock \
  > $OUT/gpu_tests_phase_clock.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests_phase_clock.log | tail -12 | cut -c1-250
