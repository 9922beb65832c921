#!/usr/bin/env bash
# Session 26, run E (nvidia-h200, ~2 min): whether the L2 promotion the TMA descriptors carry changes
# the extra L2 requests run D found under CUTLASS's 1x2 multicast: square.1024's 128x64 single kernel
# under 1x2 at promotions 0, 64 and 256 (run D had the default 128) and its 1x1 twin at 0, each
# beside nvjet (Nsight Compute's full set, scripts/device/session26_e_square_l2.json).
set -u
source scripts/device/prelude.sh
ncu_profile scripts/device/session26_e_square_l2.json 400
