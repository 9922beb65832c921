#!/usr/bin/env bash
# Session 25, run E (nvidia-h200, ~4 min): the phase clock again, now also stamping the producer's
# first load and timing an empty launch beside each kernel (what event timing charges any launch),
# on run D's eight shapes; then four of them with programmatic dependent launch off (KILN_PDL=0);
# then the phase clock's GPU tests.
set -u
source scripts/device/prelude.sh
R=bench/results/gemm_h200_20261204_session24_b_search.json
timeout 300 python3 -m bench.phase_clock --result $R --only llama7b.o_proj llama7b.down bert-large.ffn2 \
  bert-large.attn_out bert-base.attn_out square.1024 bert-large.qkv decode.m128 --out $OUT/phase_clock.json \
  > $OUT/phase_clock.log 2>&1
echo "phase clock rc=$?"; grep -v '^{' $OUT/phase_clock.log | cut -c1-300 | tail -10
KILN_PDL=0 timeout 200 python3 -m bench.phase_clock --result $R --only llama7b.o_proj bert-large.attn_out \
  bert-base.attn_out square.1024 --out $OUT/phase_clock_pdl0.json > $OUT/phase_clock_pdl0.log 2>&1
echo "phase clock KILN_PDL=0 rc=$?"; grep -v '^{' $OUT/phase_clock_pdl0.log | cut -c1-300 | tail -6
timeout 150 python3 -m pytest -q -p no:cacheprovider -rA tests/gpu/test_gpu_tuning.py -m gpu -k phase_clock \
  > $OUT/gpu_tests_phase_clock.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests_phase_clock.log | tail -12 | cut -c1-250
return_new_cache
