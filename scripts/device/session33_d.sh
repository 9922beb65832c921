#!/usr/bin/env bash
# Session 33, run D (~2 min): Nsight Compute's source page (SASS with per-instruction counts) for
# o_proj's H100 winner, its 128x256 2x1 twin and cuBLAS's nvjet kernel of that tile and cluster
# (session33_c_profile.json): how many TMA loads (UTMALDG, unicast and multicast) each issues per
# k-block per CTA, where run C found Kiln reading 23% more L2 sectors for the same bytes into the SMs.
set -u
source scripts/device/prelude.sh
NCU_SASS=1 ncu_profile scripts/device/session33_c_profile.json 200
