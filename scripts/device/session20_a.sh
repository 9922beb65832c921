#!/usr/bin/env bash
# Session 20, run A (nvidia-h200, ~5 min): where warm tuning's seconds go. `kiln bench gemm --warm 2` on
# bert-base.ffn1 (10.4 s warm in session 19, target 10) and square.1024, with the step's phase
# breakdown (StepOutcome.phase_seconds); cold compiles on this host, returned for the suite search.
set -u
source scripts/device/prelude.sh
timeout 420 python3 -m bench.gemm_suite --suite .devcarry/suite.json --only bert-base.ffn1 square.1024 --limit 16 \
  --warm 2 --out $OUT/gemm_phases.json > $OUT/search.log 2>&1
echo "search rc=$?"; grep -v '^{' $OUT/search.log | tail -4 | cut -c1-150
python3 - <<'PY'
import json, os
for r in json.load(open(os.environ["OUT"] + "/gemm_phases.json"))["shapes"]:
    print(r["name"], r["winner_name"], round(r["ratio_library_over_kiln"], 3), "cold", r["tuning_seconds_cold"],
          "warm", r.get("tuning_seconds_warm"), "timed", r["timed"])
    print("  cold", r["phase_seconds"]); print("  warm", r.get("phase_seconds_warm"))
PY
return_new_cache
