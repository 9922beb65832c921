#!/usr/bin/env bash
# Session 20, run E (nvidia-h200, ~3 min): settling by drift (`steady`: the window's halves' medians,
# not its extremes) on the shapes that still settled the full 5 s in run D (bert-base.attn_out,
# decode.m16) and square.1024 (3.2 s), each tuned and re-tuned warm; then the GPU tests that time.
set -u
source scripts/device/prelude.sh
timeout 150 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 3 \
  --only bert-base.attn_out decode.m16 square.1024 --out $OUT/gemm_warm.json > $OUT/warm.log 2>&1
echo "warm rc=$?"; grep -v '^{' $OUT/warm.log | tail -6 | cut -c1-150
python3 - <<'PY'
import json, os
for r in json.load(open(os.environ["OUT"] + "/gemm_warm.json"))["shapes"]:
    print(r["name"], "first", r["tuning_seconds_cold"], "settle", r["phase_seconds"]["measure.settle"],
          "warm", r.get("tuning_seconds_warm"), "settle", r["phase_seconds_warm"]["measure.settle"])
PY
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_tuning.py -m gpu \
  -k "timed_twice or tuning_step or verify_and_a_wrong" > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | tail -6 | cut -c1-200
