#!/usr/bin/env bash
# Session 30, run E (nvidia-h200, ~1 min): `kiln bench intake-floor`: each decode winner's tiles read
# the way its CTAs take them in (weight rows plus all, half or none of their token tile's activations
# every k-step, one CTA per SM), beside the linear read and cuBLAS. Is decode.m128's 0.85 of the
# linear read its per-SM intake?
set -u
source scripts/device/prelude.sh > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
timeout 200 python3 -m bench.intake_floor --out $OUT/intake_floor.json > /tmp/intake.log 2>&1
echo "intake floor rc=$?"; cut -c1-600 /tmp/intake.log | tail -8
