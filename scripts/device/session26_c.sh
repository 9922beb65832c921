#!/usr/bin/env bash
# Session 26, run C (nvidia-h200, ~6 min): the full GEMM suite search (`kiln bench gemm --limit 16`)
# with the self-clearing stream-K scheduler and the single-consumer per-warp stores in the space
# (every selection compiled on the CPU host first: `kiln compile --file .devcarry/gemm_problems.json
# --arch sm_90a --limit 16`), then scripts/device/session26_c.py (per-warp stores on the persistent
# winners, pipeline depths on the one-round single ones; two turns).
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
suite_search "$(python3 -c "import json; print(' '.join(json.load(open('.devcarry/gemm_problems.json'))['names']))")" 330
timeout 200 python3 scripts/device/session26_c.py $OUT/pairs.json > $OUT/pairs.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/pairs.log | cut -c1-170 | tail -60
return_new_cache
