#!/usr/bin/env bash
# Session 34, run A (~4 min): `kiln bench power` (bench/power_draw.py) on the compute-bound winners,
# two L2-moving twins of o_proj/down's winner and cuBLAS (session34_a.py says why); then, on an H200
# only, the suite replay at main (the standing H200 figures). Every cubin is compiled on the CPU host
# first (compile_twins.py on the two searches' results and session34_a_twins.json).
set -u
source scripts/device/prelude.sh
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$GPU"
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,temperature.gpu --format=csv,noheader
timeout 60 python3 -m pytest -q -p no:cacheprovider tests/bench/test_power_draw.py > $OUT/power_tests.log 2>&1
echo "power tests rc=$?"; grep -E "passed|failed|^E  " $OUT/power_tests.log | head -6 | cut -c1-250
timeout 240 python3 -m bench.power_draw --result bench/results/gemm_h100_20261206_session33_b_search.json \
  --extra scripts/device/session34_a_twins.json \
  --only llama7b.o_proj llama7b.down llama7b.qkv bert-large.qkv square.8192 --seconds 3 --turns 3 \
  --out $OUT/power.json > $OUT/power.log 2>&1
echo "power rc=$?"; grep -v '^{' $OUT/power.log | cut -c1-230
grep '^{' $OUT/power.log | python3 -c "
import json, sys
for line in sys.stdin:
    d = json.loads(line)
    for k, m in d.get('median', {}).items():
        print(d['shape'], k[:60], {a: round(b, 4) for a, b in m.items()})" 2>/dev/null | cut -c1-400
if echo "$GPU" | grep -q H200; then
  suite_replay bench/results/gemm_h200_20261204_session26_c_search.json 300
fi
return_new_cache
