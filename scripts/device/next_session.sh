#!/usr/bin/env bash
# What is left to run on GPUs (rewritten in session 13).
#  A. FIRST: the weight-streaming kernel's fifth version (ldmatrix from swizzled per-warp rings,
#     predicate-free copies inside K) has compiled but never run: its GPU tests, then
#     `kiln bench pairs --skinny` beside CUTLASS/cuBLAS (~3 min on a warm H200; see the commands at
#     the end). If it verifies and beats 14.1 µs on decode.m16 its rule set can go back in the
#     default search (KILN_SKINNY), ranked by the measured pairs.
#  0. Session 13 built Kiln's own weight-streaming decode kernel (sm90_skinny, opt-in KILN_SKINNY=1);
#     it verifies but loses to CUTLASS's swapped kernels (instruction-bound: 3-9x their warp
#     instructions, run D's profile). The decode lever left is CUTLASS's TMA + wgmma swapped
#     mainloop with K split over a cluster and summed through DSMEM (sm90_skinny's reduction), so
#     decode.m16's 64x16 kernel runs 128 CTAs without parallel split-K's second launch.
#  1. A full GEMM suite search at the beta-free epilogue for #4 (`kiln bench gemm --limit 16`):
#     session 12 only replayed session 6's winners (geomean 0.987 -> 0.995). Cold, each shape
#     compiles 16+ variants (~45 s each): compile the selection on a CPU host first
#     (`kiln compile --file problems.json --limit 16`, ~2 h on 2 cores for the suite) or split the
#     suite over two runs with --only, as session 12 did for the conv suite (runs C and D).
#  2. For the store-bound layers (res2.1x1a, res3.1x1b, res4.1x1b, res5.1x1c, attn_out): an
#     epilogue collective whose warps each stage and TMA-store their own part of a subtile, with no
#     CTA-wide named barrier per subtile (what nvjet does: 8x the TMA stores, no BAR; session 12's
#     profile, README "Known gaps"). Then `kiln bench pairs --stores` against CUTLASS's collective.
#  3. The 2.x LinearCombination pays the same alpha/beta FMUL+FFMA per element (session 12 run B's
#     conv profile): ScaleType::OnlyAlphaScaling for 2.x epilogues without a source, if 2.x kernels
#     ever matter on a Hopper host (they win nothing on the H200 today).
# Recipe: build the carry with scripts/device/prepare_carry.sh; source scripts/device/prelude.sh on
# the device; carry .whl and .devcarry; end every run that compiles there with return_new_cache.
set -u
source scripts/device/prelude.sh
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_skinny_gpu.py -m gpu > $OUT/skinny_tests.log 2>&1
echo "skinny gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/skinny_tests.log | head -12 | cut -c1-250
timeout 330 python3 -m bench.gemm_pairs --skinny --out $OUT/skinny_pairs.json > $OUT/pairs.log 2>&1
echo "pairs rc=$?"; for s in decode.m16 decode.m64 decode.m128 decode.m16.bias_gelu; do grep "^$s " $OUT/pairs.log | head -4 | cut -c1-150; done
timeout 560 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 1 --out $OUT/gemm.json > $OUT/gemm.log 2>&1
echo "gemm rc=$?"; grep -v '^{' $OUT/gemm.log | tail -24 | cut -c1-150
return_new_cache
