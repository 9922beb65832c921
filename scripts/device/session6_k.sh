#!/usr/bin/env bash
# Session 6, run K (nvidia-h200, ~1 min): every GPU test at the session's last runtime change (an
# outgrown workspace stays allocated), kernels carried from the CPU host.
set -u
source scripts/device/prelude.sh
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/gpu -m gpu > $OUT/gpu_tests.log 2>&1
echo "gpu tests rc=$?"; tail -3 $OUT/gpu_tests.log
