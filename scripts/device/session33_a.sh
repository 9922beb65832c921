#!/usr/bin/env bash
# Session 33, run A (~6 min, kind nvidia-h200): stream-K forced to share the wave-quantized
# compute-bound shapes' tiles (session33_a.py: each stored winner, cooperative 1x2 tiles under the
# persistent scheduler and their forced stream-K twins, two interleaved turns), then session 32's
# decode.m128 split twins (session32_c.py) and the intake floor (the first GPU run of
# stream_floor.LinearReference) on this card. Compile first on the CPU host:
# KILN_DATA_DIR=$PWD/.fleet-data .venv/bin/python scripts/device/compile_twins.py session33_a session32_c,
# then prepare_carry.sh.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 400 python3 scripts/device/session33_a.py $OUT/session33_a_pairs.json > $OUT/session33_a.log 2>&1
echo "streamk pairs rc=$?"; grep -v '^{' $OUT/session33_a.log | grep -E "µs" | awk '{printf "%s %s %s %s\n", $1, $2, $4, $7}' | cut -c1-160
timeout 90 python3 scripts/device/session32_c.py $OUT/session32_c_pairs.json > $OUT/session32_c.log 2>&1
echo "m128 split pairs rc=$?"; grep -v '^{' $OUT/session32_c.log | cut -c1-200 | tail -9
timeout 80 python3 -m bench.intake_floor --out $OUT/intake_floor.json > $OUT/intake.log 2>&1
echo "intake floor rc=$?"; cut -c1-400 $OUT/intake.log | tail -4
return_new_cache
