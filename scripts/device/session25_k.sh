#!/usr/bin/env bash
# Session 25, run K (nvidia-h200, ~4 min): session 24's search winners replayed beside the library at
# this session's last commit (no kernel the search offers changed: this is the suite's reading on
# another machine start).
set -u
source scripts/device/prelude.sh
suite_replay bench/results/gemm_h200_20261204_session24_b_search.json 520
return_new_cache
