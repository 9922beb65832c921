#!/usr/bin/env bash
# Session 16, run D (nvidia-h200, ~6 min): the search with four-CTA clusters in it (space
# SM90_CLUSTERS, rule four_cta_cluster_without_an_extra_round, one slot beside the two-CTA
# kernels) on the six suite shapes where the rule lets one in — `kiln bench gemm --limit 16`, cold
# (compiling on the GPU host's 16 cores) and then warm for the first shape, beside cuBLAS.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 540 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 1 \
  --only bert-base.qkv bert-large.ffn1 llama7b.o_proj llama7b.up llama7b.down bf16.llama7b.up \
  --out $OUT/gemm.json > $OUT/gemm.log 2>&1
echo "gemm rc=$?"; grep -v '^{' $OUT/gemm.log | tail -14 | cut -c1-170
python3 - <<'PY'
import json, os
d = json.load(open(os.environ["OUT"] + "/gemm.json"))
for s in d["shapes"]:
    big = [c for c in s.get("candidates", []) if "_c2x2_" in c["name"] or "_c4x1_" in c["name"] or "_c1x4_" in c["name"]]
    best = sorted((c for c in s.get("candidates", []) if c.get("time_us")), key=lambda c: c["time_us"])[:3]
    print(s["name"], "winner", s["winner_name"], round(s["kiln_us"], 2), "lib", round(s["library_us"] or 0, 2),
          "| 4-CTA:", [(c["name"], c["status"], c.get("time_us") and round(c["time_us"], 2)) for c in big],
          "| top3:", [(c["name"][:48], round(c["time_us"], 2)) for c in best])
PY
