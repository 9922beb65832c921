#!/usr/bin/env bash
# Session 35, runs A (~7 min) and B (`bash session35_a.sh b`, ~4 min): the compute-bound winners
# beside their swapped cooperative twins (the weight as wgmma's A operand, cuBLAS's operand roles;
# session35_a.py says why), two interleaved
# turns with cuBLAS; then `kiln bench power` on the same kernels on random operands (session 34
# run A again, whose result file was lost with its machine, plus the swapped twins) and on zeroed
# ones (the cap's grip lifted: time ratio against cycle ratio). Every cubin is compiled on the CPU
# host first: compile_twins.py on the winners, session34_a_twins.json and session35_a.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,temperature.gpu --format=csv,noheader
power() {  # power DATA SHAPES...
  local data=$1; shift
  timeout 200 python3 -m bench.power_draw --result bench/results/gemm_h100_20261206_session33_b_search.json \
    --extra scripts/device/session34_a_twins.json --extra scripts/device/session35_a_twins.json \
    --only "$@" --seconds 2.5 --turns 2 --data $data --out $OUT/power_$data.json > $OUT/power_$data.log 2>&1
  echo "power $data rc=$?"
  power_medians $OUT/power_$data.log
}
if [ "${1:-a}" = b ]; then
  power zeros llama7b.o_proj llama7b.down square.8192 llama7b.qkv
  exit 0
fi
timeout 60 python3 -m pytest -q -p no:cacheprovider tests/bench/test_power_draw.py > $OUT/power_tests.log 2>&1
echo "power tests rc=$?"; grep -E "passed|failed|^E  " $OUT/power_tests.log | head -6 | cut -c1-250
timeout 240 python3 scripts/device/session35_a.py $OUT/session35_a_pairs.json > $OUT/session35_a.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/session35_a.log | grep -E "µs|FAIL|rror" | cut -c1-200 | head -70
power randn llama7b.o_proj llama7b.down square.8192 llama7b.qkv bert-large.qkv
