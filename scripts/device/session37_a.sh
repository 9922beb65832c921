#!/usr/bin/env bash
# Session 37, run A (~2 min): the odd-width (88-row) tiles' GPU tests, then decode.m64's 88-row
# twins (126 CTAs where the winner's 96 rows make 115) and decode.m16's plain 64x32 twins (128 CTAs)
# beside their winners and cuBLAS (scripts/device/session37_a.py).
# Compile first on the CPU host: compile_twins.py session37_a, then prepare_carry.sh.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 150 python3 -m pytest -q -p no:cacheprovider -rA tests/gpu/test_gpu_tuning.py -m gpu -k "88 or plain_64x96" \
  > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | tail -8 | cut -c1-250
timeout 300 python3 scripts/device/session37_a.py $OUT/session37_a_pairs.json > $OUT/session37_a.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/session37_a.log | cut -c1-160 | tail -30
