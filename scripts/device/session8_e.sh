#!/usr/bin/env bash
# Session 8, run E (nvidia-h200, ~5 min), at the session's final kernels and runtime:
#  1. first thing on the just-started GPU, the timing-stability test (run D failed it cold:
#     328 vs 346 µs after two agreeing settle rounds; settle now waits for a 0.5 s window of rounds
#     within 1%);
#  2. back-to-back launches between one pair of events (`kiln bench chain`), programmatic dependent
#     launch off, then on: what the overlap is worth where kernels follow each other (run D's A/B
#     timed each launch between its own events and saw none of it);
#  3. the conv suite (what the CPU host had not compiled in time is compiled here on 16 cores).
# (A GEMM re-time was planned too: dropped for device time, after run D's A/B showed PDL changes
# nothing under per-launch event timing.)
set -u
source scripts/device/prelude.sh
timeout 90 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_tuning.py -m gpu -k timed_twice > $OUT/stability.log 2>&1
echo "stability rc=$?"; tail -2 $OUT/stability.log | cut -c1-200
CHAIN="--result bench/results/gemm_h200_20261129_session6_f.json --result bench/results/conv2d_h200_20261130_session7_e.json --only square.1024 bert-base.attn_out r50.res2.1x1a r50.res3.1x1b"
KILN_PDL=0 timeout 60 python3 -m bench.launch_chain $CHAIN > $OUT/chain_pdl_off.jsonl 2> $OUT/chain_pdl_off.err
echo "chain off rc=$?"; cat $OUT/chain_pdl_off.jsonl | cut -c1-220
timeout 60 python3 -m bench.launch_chain $CHAIN > $OUT/chain_pdl_on.jsonl 2> $OUT/chain_pdl_on.err
echo "chain on rc=$?"; cat $OUT/chain_pdl_on.jsonl | cut -c1-220
timeout 240 python3 -m service.cli.main compile --file .devcarry/conv_problems.json --arch sm_90a --limit 8 --jobs 16 \
  > $OUT/compile.log 2>&1; echo "compile rc=$?"
timeout 110 python3 -m bench.conv_suite --suite .devcarry/suite.json --limit 8 --out $OUT/conv2d.json > $OUT/conv2d.log 2>&1
echo "conv rc=$?"; grep -v '^{' $OUT/conv2d.log | tail -17 | cut -c1-150
