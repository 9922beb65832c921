#!/usr/bin/env bash
# Session 32, run C (~1 min, any sm_90 card): `kiln bench intake-floor` with decode.m128's lever
# beside its winner's intake: 128 weight rows per CTA (half the activation bytes per weight byte)
# on two K slices (128 CTAs, what a cluster split-K kernel reads), with and without activations.
# Register counts are memoized now (the device's NVRTC gave no ptxas log for a repeated source).
set -u
source scripts/device/prelude.sh > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 python3 -m bench.intake_floor --out $OUT/intake_floor.json > /tmp/intake.log 2>&1
echo "intake floor rc=$?"; cut -c1-700 /tmp/intake.log | tail -24
