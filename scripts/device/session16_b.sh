#!/usr/bin/env bash
# Session 16, run B (nvidia-h200, ~6 min, straight after run A on the same warm machine, whose
# .fleet-data holds run A's compiles): `kiln bench pairs --clusters`, each stored suite winner
# (session 13's replay) under its own cluster and under every four-CTA cluster the rules accept,
# verified and timed beside cuBLAS, the leaders re-timed in interleaved turns.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 540 python3 -m bench.gemm_pairs --clusters --out $OUT/cluster_pairs.json > $OUT/pairs.log 2>&1
echo "pairs rc=$?"; grep -E "µs" $OUT/pairs.log | cut -c1-150
xz -T0 $OUT/pairs.log
