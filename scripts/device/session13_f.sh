#!/usr/bin/env bash
# Session 13, run F (nvidia-h200, ~8 min): every GPU test at this commit (the weight-streaming
# kernel's verification and parallel split-K's reduction launched as a programmatic dependent of
# its GEMM among them); the decode shapes searched again at limit 16 (sm90_skinny out of the
# search, KILN_SKINNY unset); their winners replayed with programmatic dependent launch off and on
# (KILN_PDL=0 / default), each beside cuBLAS in the same process: what the dependent reduction buys.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
timeout 330 python3 -m pytest -q -p no:cacheprovider tests/gpu -m gpu > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/gpu_tests.log | head -12 | cut -c1-250
timeout 150 python3 -m bench.gemm_suite --suite .devcarry/suite.json --only decode.m16 decode.m64 decode.m128 --limit 16 \
  --warm 0 --out $OUT/gemm_decode.json > $OUT/gemm.log 2>&1
echo "decode search rc=$?"; grep -v '^{' $OUT/gemm.log | tail -6 | cut -c1-150
for pdl in 0 1; do
  KILN_PDL=$pdl timeout 60 python3 -m bench.gemm_suite --suite .devcarry/suite.json --replay $OUT/gemm_decode.json \
    --out $OUT/gemm_decode_replay_pdl$pdl.json > $OUT/replay_pdl$pdl.log 2>&1
  echo "replay KILN_PDL=$pdl rc=$?"; grep -v '^{' $OUT/replay_pdl$pdl.log | tail -5 | cut -c1-150
  cat $OUT/replay_pdl$pdl.log >> $OUT/gemm.log; rm -f $OUT/replay_pdl$pdl.log
done
return_new_cache
