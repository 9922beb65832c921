#!/usr/bin/env bash
# Session 13, run H (nvidia-h200, ~2 min): the fused-epilogue cost at the beta-free epilogue
# (`kiln bench gemm --twins`): bert-base.ffn1 with bias + GELU, and the same GEMM without an
# epilogue, each searched at limit 16 (compiled on the CPU host), beside cuBLAS / cuBLASLt.
set -u
source scripts/device/prelude.sh
timeout 150 python3 -m bench.gemm_suite --suite .devcarry/suite.json --only bert-base.ffn1 --twins --limit 16 --warm 0 \
  --out $OUT/gemm_ffn1_twins.json > $OUT/gemm.log 2>&1
echo "twins rc=$?"; grep -v '^{' $OUT/gemm.log | tail -4 | cut -c1-150
python3 -c "import json; r=json.load(open('$OUT/gemm_ffn1_twins.json'))['shapes'][0]; print({k: r.get(k) for k in ('kiln_us','twin_no_epilogue_us','epilogue_overhead','library_us','library','winner_name','twin_no_epilogue_winner')})"
