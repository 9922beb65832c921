#!/usr/bin/env bash
# Session 17, run D (nvidia-h200, ~8 min): decode.m128's search with cluster split-K's rule and
# K-tile spread as committed (`kiln bench gemm --only decode.m128 --limit 16`), then the whole suite
# replayed at this commit (`kiln bench gemm --replay scripts/device/replay_session17.json`: session
# 13's winners with decode.m128's replaced by run A's cluster split-K kernel), beside cuBLAS.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 120 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 0 --only decode.m128 \
  --out $OUT/gemm_m128.json > $OUT/gemm_m128.log 2>&1
echo "m128 search rc=$?"; grep -v '^{' $OUT/gemm_m128.log | tail -3 | cut -c1-170
python3 -c "
import json; s = json.load(open('$OUT/gemm_m128.json'))['shapes'][0]
print(s['winner_name'], round(s['kiln_us'], 2), 'lib', round(s['library_us'], 2))
print(sorted([(round(c['time_us'], 2), c['name'][13:70]) for c in s['candidates'] if c.get('time_us')])[:6])"
timeout 400 python3 -m bench.gemm_suite --suite .devcarry/suite.json --replay scripts/device/replay_session17.json \
  --out $OUT/gemm_replay.json > $OUT/replay.log 2>&1
echo "replay rc=$?"; grep -v '^{' $OUT/replay.log | tail -22 | cut -c1-150
