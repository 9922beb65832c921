#!/usr/bin/env bash
# Session 16, run C (nvidia-h200, ~1 min, the warm machine of runs A-B): why four-CTA clusters
# timed slower in run B — `python -m bench.cluster_occupancy`: each kernel's co-resident clusters
# (cuOccupancyMaxActiveClusters) and the persistent grid its builder picked.
set -u
source scripts/device/prelude.sh
timeout 240 python3 -m bench.cluster_occupancy --out $OUT/cluster_occupancy.json > $OUT/occupancy.log 2>&1
echo "occupancy rc=$?"; grep -E "resident|Error|error" $OUT/occupancy.log | cut -c1-210
