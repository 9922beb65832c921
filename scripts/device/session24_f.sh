#!/usr/bin/env bash
# Session 24, run F (nvidia-h200, ~2 min): run B's eighteen winners replayed (`kiln bench gemm --replay`),
# each re-timed beside the library on a second machine start: a second reading of the geomean and of
# decode.m16's 1.148.
set -u
source scripts/device/prelude.sh
suite_replay bench/results/gemm_h200_20261204_session24_b_search.json 300
return_new_cache
