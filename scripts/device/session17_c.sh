#!/usr/bin/env bash
# Session 17, run C (nvidia-h200, ~5 min): the decode shapes' search with cluster split-K in it
# (`kiln bench gemm --limit 16`, the workers' own selection: swapped decode kernels only), compiled
# on the CPU host (`kiln compile --file decode.json --limit 16`) and carried; warm re-tune of the first.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 420 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 1 \
  --only decode.m16 decode.m64 decode.m128 --out $OUT/gemm.json > $OUT/gemm.log 2>&1
echo "gemm rc=$?"; grep -v '^{' $OUT/gemm.log | tail -8 | cut -c1-170
python3 - <<'PY'
import json, os
d = json.load(open(os.environ["OUT"] + "/gemm.json"))
for s in d["shapes"]:
    split = [c for c in s.get("candidates", []) if "_skc_" in c["name"]]
    best = sorted((c for c in s.get("candidates", []) if c.get("time_us")), key=lambda c: c["time_us"])[:3]
    print(s["name"], "winner", s["winner_name"], round(s["kiln_us"], 2), "lib", round(s["library_us"] or 0, 2),
          "| cluster split:", [(c["name"][13:60], c["status"], c.get("time_us") and round(c["time_us"], 2)) for c in split],
          "| top3:", [(c["name"][:56], round(c["time_us"], 2)) for c in best])
PY
return_new_cache
