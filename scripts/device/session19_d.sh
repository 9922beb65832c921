#!/usr/bin/env bash
# Session 19, run D (nvidia-h200, ~6 min): every GPU test (`pytest tests/gpu -m gpu`; what the carried
# cache lacks is compiled here first), after the launcher's per-kernel TMA L2 promotion and the
# measurement's leader twins.
set -u
source scripts/device/prelude.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv,noheader
all_gpu_tests 300 240
