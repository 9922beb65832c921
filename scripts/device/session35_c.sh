#!/usr/bin/env bash
# Session 35, run C (~2 min): `kiln bench power` on o_proj's H100 winner beside one-change twins
# (session35_c.py says which and why), on random and on zeroed operands: which behaviour outside the
# data path draws the watts. The two compiled twins come from the CPU host (compile_twins.py
# scripts/device/session35_c_twins.json); the rest reuse the winner's and attn_out's cubins. Last, the
# winner alone with programmatic dependent launch off (KILN_PDL=0): Kiln's launches let the next grid's
# CTAs start as SMs free up, torch's cuBLAS calls do not.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,temperature.gpu --format=csv,noheader
for data in zeros randn; do  # zeros first: the discriminating mode
  timeout 150 python3 -m bench.power_draw --result bench/results/gemm_h100_20261206_session33_b_search.json \
    --extra scripts/device/session35_c_twins.json --only llama7b.o_proj --seconds 2 --turns 2 --data $data \
    --out $OUT/power_c_$data.json > $OUT/power_c_$data.log 2>&1
  echo "power $data rc=$?"
  power_medians $OUT/power_c_$data.log
done
KILN_PDL=0 timeout 60 python3 -m bench.power_draw --result bench/results/gemm_h100_20261206_session33_b_search.json \
  --only llama7b.o_proj --seconds 2 --turns 2 --data zeros --out $OUT/power_c_zeros_nopdl.json > $OUT/power_c_zeros_nopdl.log 2>&1
echo "power zeros, no PDL rc=$?"; grep -E "µs" $OUT/power_c_zeros_nopdl.log | cut -c1-200
