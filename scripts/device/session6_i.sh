#!/usr/bin/env bash
# Session 6, run I (nvidia-h200, ~2 min): the one-wave shapes' winners with CUTLASS's automatic
# TMA-epilogue subtile and a 64-wide one (`kiln bench pairs --epitile`), compiled on the CPU host.
# Ran at commit f1516fa; the subtile knob and --epitile were taken out after it (no gain: ±1%).
set -u
source scripts/device/prelude.sh
timeout 200 python3 -m bench.gemm_pairs --epitile --out $OUT/pairs_epitile.json > $OUT/pairs_epitile.log 2>&1
echo "pairs rc=$?"; grep -v '^{' $OUT/pairs_epitile.log | cut -c1-130 | sort -k1,1 -k4,4n
