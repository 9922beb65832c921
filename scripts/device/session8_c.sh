#!/usr/bin/env bash
# Session 8, run C (nvidia-h200, ~4 min): what the bias costs, and whether loading it into registers
# (templates/row_bias_registers.cuh.j2) instead of CUTLASS's per-tile global -> shared copy and
# barrier takes that cost away. Each problem's winning config with and without its bias, first as
# rendered by default (registers), then with KILN_BIAS_VIA_SMEM=1 (CUTLASS's); the bias-free twins
# are the same cubins in both, so they also show the two passes' drift.
set -u
source scripts/device/prelude.sh
timeout 250 python3 -m bench.gemm_pairs --bias --out $OUT/bias_registers.json > $OUT/bias_registers.log 2>&1
echo "registers rc=$?"; grep -v '^{' $OUT/bias_registers.log | cut -c1-160
KILN_BIAS_VIA_SMEM=1 timeout 250 python3 -m bench.gemm_pairs --bias --out $OUT/bias_smem.json > $OUT/bias_smem.log 2>&1
echo "smem rc=$?"; grep -v '^{' $OUT/bias_smem.log | cut -c1-160
