#!/usr/bin/env bash
# Session 25, run G (nvidia-h200, ~3 min): where a fusion's cost goes. The phase clock on the fused
# suite winners and on each with its epilogue taken out (`kiln bench phases --unfused`).
set -u
source scripts/device/prelude.sh
timeout 400 python3 -m bench.phase_clock --result bench/results/gemm_h200_20261204_session24_b_search.json \
  --only bert-base.ffn1 bert-large.ffn1 llama7b.up bert-base.ffn2 --unfused --out $OUT/phase_clock.json \
  > $OUT/phase_clock.log 2>&1
echo "phase clock rc=$?"; grep -v '^{' $OUT/phase_clock.log | cut -c1-300 | tail -10
return_new_cache
