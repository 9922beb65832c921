#!/usr/bin/env bash
# Session 20, run D (nvidia-h200, ~4 min): the whole GEMM suite searched in one run at the final
# commit (`kiln bench gemm --limit 16`, every cubin carried from the CPU host and runs A-C), after
# the warm-time cuts; the first shape also re-tuned warm (its first tuning pays the measurement
# process's start).
set -u
source scripts/device/prelude.sh
timeout 400 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 1 --out $OUT/gemm_search.json \
  > $OUT/search.log 2>&1
echo "search rc=$?"; grep -v '^{' $OUT/search.log | tail -22 | cut -c1-150
python3 - <<'PY'
import json, os
for r in json.load(open(os.environ["OUT"] + "/gemm_search.json"))["shapes"]:
    print(r["name"], "fresh", r["compiled_fresh"], "tune", r["tuning_seconds_cold"], "warm", r.get("tuning_seconds_warm"),
          "settle", r["phase_seconds"].get("measure.settle"))
PY
