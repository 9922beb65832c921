#!/usr/bin/env bash
# Session 36, run A: on an H200, the suite replay at main (session 26 run C's stored winners re-timed
# beside the library: the standing H200 figures); on an H100, session 35's prepared runs C (o_proj's
# winner beside one-change twins under `kiln bench power`) and D (`kiln bench turns`). Every cubin is
# compiled on the CPU host first (compile_twins.py on the searches' results and session35_c_twins.json).
set -u
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$GPU"
if echo "$GPU" | grep -q H200; then
  source scripts/device/prelude.sh
  suite_replay bench/results/gemm_h200_20261204_session26_c_search.json 480
  return_new_cache
else
  bash scripts/device/session35_c.sh; echo ======; bash scripts/device/session35_d.sh
fi
