#!/usr/bin/env bash
# Session 20, run B (nvidia-h200, ~6 min): the full GEMM suite search, the six shapes run A left (as
# run A), then the warm-time cuts (one module per cubin, settling rounds timed as one batch of
# launches: gpu_bench.PlanModules, settle) on three shapes run A timed before them, each tuned and
# re-tuned warm with its phase breakdown.
set -u
source scripts/device/prelude.sh
suite_search "decode.m16 decode.m64 decode.m128 square.1024 square.8192 bf16.llama7b.up" 300
timeout 150 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 3 \
  --only bert-base.qkv bert-base.attn_out bert-base.ffn1 --out $OUT/gemm_warm.json > $OUT/warm.log 2>&1
echo "warm rc=$?"
python3 - <<'PY'
import json, os
for r in json.load(open(os.environ["OUT"] + "/gemm_warm.json"))["shapes"]:
    print(r["name"], r["winner_name"], round(r["ratio_library_over_kiln"], 3), "first", r["tuning_seconds_cold"],
          "warm", r.get("tuning_seconds_warm"), "timed", r["timed"])
    print("  warm", r.get("phase_seconds_warm"))
PY
return_new_cache
