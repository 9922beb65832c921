#!/usr/bin/env bash
# Session 22, run A (nvidia-h200, ~10 min): every GPU test at this commit, from an empty carried
# cache (the 63 kernels the tests build compiled on this host's 16 cores first): session 21 changed
# the decode ranking, so the TUNED tests select new kernels, and no run since session 20 ran them all.
set -u
source scripts/device/prelude.sh
all_gpu_tests 330 260
return_new_cache
