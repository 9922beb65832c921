#!/usr/bin/env bash
# Session 32, run D (~2 min, any sm_90 card): decode.m128's winner beside 128-weight-row cluster
# split-K twins (scripts/device/session32_c.py says why). Compile first on the CPU host:
# KILN_DATA_DIR=$PWD/.fleet-data .venv/bin/python scripts/device/compile_twins.py session32_c,
# then prepare_carry.sh.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 scripts/device/session32_c.py $OUT/session32_c_pairs.json > $OUT/session32_c.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/session32_c.log | cut -c1-200 | tail -30
return_new_cache
