#!/usr/bin/env bash
# Session 6, run J (nvidia-h200, ~1 min): bert-base.ffn1 with and without its bias+GELU through
# the ranking with the pipeline-depth term (`--twins`: the fused epilogue's cost), every variant
# compiled on the CPU host.
set -u
source scripts/device/prelude.sh
timeout 200 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 0 --only bert-base.ffn1 --twins \
  --out $OUT/gemm_ffn1_twins.json > $OUT/gemm_ffn1_twins.log 2>&1
echo "twins rc=$?"; grep -v '^{' $OUT/gemm_ffn1_twins.log | tail -4 | cut -c1-150
python3 -c "import json; r=json.load(open('$OUT/gemm_ffn1_twins.json'))['shapes'][0]; print(r['kiln_us'], r['twin_no_epilogue_us'], r['epilogue_overhead'], r['library_times_us'])"
