#!/usr/bin/env bash
# Session 16, run E (nvidia-h200, ~2 min): does run B's one four-CTA gain replicate? bert-base.qkv's
# stored ping-pong 128x128 1x2 winner beside its 2x2, 4x1 and 1x4 twins, twice in a row.
set -u
source scripts/device/prelude.sh
for i in 1 2; do
  timeout 200 python3 -m bench.gemm_pairs --clusters --only bert-base.qkv --out $OUT/qkv_clusters_$i.json > $OUT/pairs_$i.log 2>&1
  echo "pairs $i rc=$?"; grep -E "µs" $OUT/pairs_$i.log | cut -c1-150
done
