#!/usr/bin/env bash
# Session 9, run B (nvidia-h200, ~8 min):
#  1. on the just-started GPU, the timing-stability test's kernel watched for 45 s (100-launch
#     medians back to back after the first settle) while nvidia-smi samples SM clock, power and
#     temperature every 200 ms: when and why a cold H200 drifts (run A failed the test: 331/344 µs);
#  2. the conv suite with four-stores-in-flight cooperative twins in the search (new cubins compiled
#     here on 16 cores first; run A compiled the rest and it is carried).
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
  --format=csv -lms 200 > $OUT/smi.csv 2>&1 &
SMI=$!
timeout 80 python3 scripts/device/timing_drift.py --seconds 45 > $OUT/drift.jsonl 2> $OUT/drift.err
echo "drift rc=$?"; head -1 $OUT/drift.jsonl; awk 'NR%8==2' $OUT/drift.jsonl | cut -c1-80 | head -12
kill $SMI; awk -F', ' 'NR>1 && NR%10==2 {print $2, $4, $5, $6}' $OUT/smi.csv | head -30
timeout 200 python3 -m service.cli.main compile --file .devcarry/conv_problems.json --arch sm_90a --limit 8 --jobs 16 \
  > $OUT/compile.log 2>&1; echo "compile rc=$?"; tail -1 $OUT/compile.log | cut -c1-200
timeout 200 python3 -m bench.conv_suite --suite .devcarry/suite.json --limit 8 --out $OUT/conv2d.json > $OUT/conv2d.log 2>&1
echo "conv rc=$?"; grep -v '^{' $OUT/conv2d.log | tail -17 | cut -c1-150
