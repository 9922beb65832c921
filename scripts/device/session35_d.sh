#!/usr/bin/env bash
# Session 35, run D (~2 min; prepared, not run in session 35): `kiln bench turns` on the compute-bound
# H100 winners and cuBLAS. Do they fall behind the library later in the suite's timing turn, as the GPU
# re-enters its power cap after the sleep kernel's idle? (README "The compute-bound 0.98s are power".)
# The winners' cubins come from the CPU host (compile_twins.py on the session 33 run B search).
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv,noheader
timeout 60 python3 -m pytest -q -p no:cacheprovider tests/bench/test_turn_profile.py > $OUT/turn_tests.log 2>&1
echo "turn tests rc=$?"; grep -E "passed|failed|^E  " $OUT/turn_tests.log | head -4 | cut -c1-250
timeout 240 python3 -m bench.turn_profile --result bench/results/gemm_h100_20261206_session33_b_search.json \
  --only llama7b.o_proj llama7b.down llama7b.qkv square.8192 bert-large.qkv --turns 20 --reps 60 \
  --out $OUT/turns.json > $OUT/turns.log 2>&1
echo "turns rc=$?"; grep -v '^/' $OUT/turns.log | cut -c1-230 | tail -20
