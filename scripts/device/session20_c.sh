#!/usr/bin/env bash
# Session 20, run C (nvidia-h200, ~8 min): every GPU test at this commit (kernels the carried cache
# lacks compiled here first); bert-base.ffn1 tuned from an empty compile cache (cold: its 16 cubins
# compiled on this host's 16 cores) and re-tuned warm; the warm-time cuts' second round (settling on
# the fused library path, the first pass's GPU-time budget) on the shapes that were still slowest.
set -u
source scripts/device/prelude.sh
all_gpu_tests 260 240
KILN_DATA_DIR=$PWD/.cold timeout 200 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 1 \
  --only bert-base.ffn1 --out $OUT/gemm_cold.json > $OUT/cold.log 2>&1
echo "cold rc=$?"
timeout 120 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 3 \
  --only decode.m16 bert-large.ffn1 square.8192 --out $OUT/gemm_warm.json > $OUT/warm.log 2>&1
echo "warm rc=$?"
python3 - <<'PY'
import json, os
for f in ("gemm_cold.json", "gemm_warm.json"):
    for r in json.load(open(os.environ["OUT"] + "/" + f))["shapes"]:
        print(r["name"], r["winner_name"], round(r["ratio_library_over_kiln"], 3), "first", r["tuning_seconds_cold"],
              "fresh", r["compiled_fresh"], "warm", r.get("tuning_seconds_warm"), "timed", r["timed"])
        print("  warm", r.get("phase_seconds_warm"))
PY
return_new_cache
