#!/usr/bin/env bash
# Session 37, run C (~2 min): cluster split-K with interleaved K slices (KernelConfig.split_k_interleave)
# beside the contiguous slices and the decode.m128 / decode.m16 winners (scripts/device/session37_c.py),
# after the interleaved kernel's GPU test. Compile first on the CPU host: compile_twins.py
# session37_c, then prepare_carry.sh.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 120 python3 -m pytest -q -p no:cacheprovider -rA tests/gpu/test_gpu_tuning.py -m gpu -k "interleaved" \
  > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | tail -6 | cut -c1-250
timeout 300 python3 scripts/device/session37_c.py $OUT/session37_c_pairs.json > $OUT/session37_c.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/session37_c.log | cut -c1-160 | tail -30
