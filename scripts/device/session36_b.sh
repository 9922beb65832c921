#!/usr/bin/env bash
# Session 36, run B (~2 min): does programmatic dependent launch explain why `kiln bench power`'s
# back-to-back windows put o_proj/down nearer cuBLAS than the suite's per-launch timing? Run A (H200)
# had o_proj's winner at 0.994 of cuBLAS's time on zeroed operands with PDL and 1.007 without. Here,
# on random operands, each winner with PDL off under `kiln bench power` (the intrinsic sustained
# ratio), then `kiln bench turns` with PDL off (the suite's per-launch events should leave nothing
# to overlap: expect run A's 1.019 / 1.011 again).
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,temperature.gpu --format=csv,noheader
R=bench/results/gemm_h100_20261206_session33_b_search.json
KILN_PDL=0 timeout 100 python3 -m bench.power_draw --result $R --only llama7b.o_proj llama7b.down --seconds 2 \
  --turns 2 --data randn --out $OUT/power_randn_nopdl.json > $OUT/power_randn_nopdl.log 2>&1
echo "power randn, no PDL rc=$?"; power_medians $OUT/power_randn_nopdl.log
KILN_PDL=0 timeout 100 python3 -m bench.turn_profile --result $R --only llama7b.o_proj llama7b.down --turns 20 \
  --reps 60 --out $OUT/turns_nopdl.json > $OUT/turns_nopdl.log 2>&1
echo "turns, no PDL rc=$?"; grep -v '^/' $OUT/turns_nopdl.log | cut -c1-230 | tail -6
