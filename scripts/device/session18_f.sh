#!/usr/bin/env bash
# Session 18, run F (nvidia-h200, ~4 min): the swapped 128x192 ping-pong tile now in the search space
# for mid-size GEMMs (worker/kernels/space.py _sm90_tall_swapped_configs, after run E):
#  1. its GPU tests (tails in M, N, K; a fused bias along the kernel's rows + GELU; bert-base.qkv);
#  2. bert-base.qkv searched (`kiln bench gemm --only bert-base.qkv --limit 16`), the new
#     candidates compiled on the GPU host: does the search find and keep it?
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 100 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_tuning.py -m gpu -k tall > $OUT/gpu_tests.log 2>&1
echo "tall gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | head -8 | cut -c1-250
timeout 200 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 0 --only bert-base.qkv \
  --out $OUT/gemm_qkv_search.json > $OUT/qkv_search.log 2>&1
echo "qkv search rc=$?"; grep -v '^{' $OUT/qkv_search.log | tail -3 | cut -c1-150
python3 -c "
import json; s = json.load(open('$OUT/gemm_qkv_search.json'))['shapes'][0]
print(s['winner_name'], round(s['kiln_us'], 2), 'lib', round(s['library_us'], 2), 'cold', s['tuning_seconds_cold'])
print(sorted([(round(c['time_us'], 2), c['name'][13:75]) for c in s['candidates'] if c.get('time_us')])[:6])"
return_new_cache
