#!/usr/bin/env bash
# Session 37, run B (~3 min): seven compute-bound winners beside their 32-deep k-tile twins (twice the
# stages in the same shared memory; scripts/device/session37_b.py). Compile first on the CPU host:
# compile_twins.py session37_b, then prepare_carry.sh.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
pairs_script session37_b 400
