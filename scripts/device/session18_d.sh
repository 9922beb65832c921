#!/usr/bin/env bash
# Session 18, run D (nvidia-h200, ~5 min): the fused shapes searched afresh with Kiln's activation
# functors (`kiln bench gemm --only bert-base.ffn1 bert-large.ffn1 llama7b.up --limit 16 --warm 1`),
# compiling cold on the GPU host's 16 cores (an empty compile cache): tuning time cold and warm, and the winners.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
# an empty compile cache: every candidate compiles here, as on a GPU host that never saw these shapes
KILN_DATA_DIR=$PWD/.cold-data timeout 300 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 1 \
  --only bert-base.ffn1 bert-large.ffn1 llama7b.up --out $OUT/gemm_fused_search.json > $OUT/fused_search.log 2>&1
echo "fused search rc=$?"; grep -v '^{' $OUT/fused_search.log | tail -6 | cut -c1-150
python3 -c "
import json
for s in json.load(open('$OUT/gemm_fused_search.json'))['shapes']:
    print(s['name'], s['winner_name'], round(s['kiln_us'], 2), 'lib', round(s['library_us'], 2), 'cold', s.get('tuning_seconds_cold'), 'warm', s.get('tuning_seconds_warm'))
    print(sorted([(round(c['time_us'], 2), c['name'][13:75]) for c in s['candidates'] if c.get('time_us')])[:5])"
return_new_cache
