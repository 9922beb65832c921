#!/usr/bin/env bash
# Session 41, run A (~5 min): the consumer loop unrolled over the stages (KernelConfig.lean_consumer,
# templates/lean_consumer_mainloop.cuh.j2): each compute-bound winner of session 33 run B beside its
# lean twin and cuBLAS (scripts/device/session41_a.py; each verified first), its GPU tests, then o_proj's pair under
# `kiln bench power` with PDL off (cycles and clock per launch against nvjet's). Compile first on the
# CPU host: compile_twins.py session41_a, then prepare_carry.sh.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
pairs_script session41_a 230
gpu_tests_matching "lean_consumer" 90
R=bench/results/gemm_h100_20261206_session33_b_search.json
KILN_PDL=0 timeout 70 python3 -m bench.power_draw --result $R --extra scripts/device/session41_a_twins.json \
  --only llama7b.o_proj llama7b.down --seconds 2 --turns 2 --data randn --out $OUT/power_randn_nopdl.json \
  > $OUT/power_randn_nopdl.log 2>&1
echo "power randn, no PDL rc=$?"; power_medians $OUT/power_randn_nopdl.log
