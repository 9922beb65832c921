#!/usr/bin/env bash
# What is left to run on GPUs (rewritten in session 14; later sessions' items marked).
#  A. Session 14 measured the decode floor (`kiln bench floor`: 12.0 us m16, 24.7-25.0 us m64/m128;
#     cuBLAS can be beaten by at most 1.08x on m64) and found Kiln's weight-streaming kernel
#     (sm90_skinny v6, W straight into mma registers, warps along K) at CUTLASS's fixed cost but half
#     its streaming rate (`kiln bench pairs --decode-ksweep`). Next for it: TMA (cp.async.bulk.tensor,
#     a 2-D map over W with 128-byte swizzle) boxes of whole 256-byte+ row runs into shared memory,
#     as CUTLASS streams at 4.4 TB/s, then ldmatrix as in v5 (git history); re-run
#     `--decode-ksweep` and `--skinny` (commands below).
#  0. For decode.m16 (1.12 of the 1.15 target; 14.4 us against a 12.7 us floor on 64 CTAs) the cost
#     left is CUTLASS's fixed cost: cluster split of K with a DSMEM reduction around CUTLASS's
#     swapped mainloop (no second launch) is the lever named since session 13.
#  1. A full GEMM suite search at the beta-free epilogue for #4 (`kiln bench gemm --limit 16`):
#     session 12 only replayed session 6's winners (geomean 0.987 -> 0.995). Cold, each shape
#     compiles 16+ variants (~45 s each): compile the selection on a CPU host first
#     (`kiln compile --file problems.json --limit 16`, ~2 h on 2 cores for the suite) or split the
#     suite over two runs with --only, as session 12 did for the conv suite (runs C and D).
#  2. Done in session 15: per-warp TMA stores (`warp_stores`, no CTA barrier per subtile) moved no
#     suite winner by more than -0.6%..+1.3% (gemm_pairs_h200_20261202_session15_a_warp_stores.json).
#     The in-kernel gap to nvjet is not the barriers. Next: profile a warp_stores winner against
#     nvjet (`kiln bench profile` + `kiln bench sass-mix --diff`) and see what excess is left.
#     Also look at why square.8192's pair timing is bimodal (1490-1510 vs 1620 us, the slow one
#     switching sides between runs, session 15 run B).
#  2b. Done in session 16: four-CTA clusters (2x2, 4x1, 1x4) build, verify and launch on a grid of
#     co-resident clusters, but the H200 holds only 120 of their CTAs; they lost everywhere but
#     bert-base.qkv's ping-pong 128x128 (-2.3%), and the search's picks lost 6-25% (runs B-D,
#     gemm_pairs_h200_20261202_session16_b_clusters.json, gemm_h200_20261202_session16_d_four_cta_search.json).
#     Out of the default space. Run G then showed 2x2 beats its own 1x2 twin by 1.2-2.1% under
#     either schedule where 120 CTAs leave the round count equal (bert-base.qkv): the next step is a
#     second timing pass that re-times the measured leader's 2x2 twin (one extra compile), not a
#     ranked slot; check it on bert-base.qkv (0.95 -> ~0.97) and that no other suite shape gets one.
#  2c. Done in session 17: cluster split-K (split_k_mode="cluster", templates/cluster_splitk_kernel.cuh.j2):
#     K slices of one tile on one cluster's CTAs, partials summed through DSMEM by the leader. It verifies
#     at slice counts 1-8 (GPU tests) and wins decode.m128 (64x128x64 split 2: 32.06-32.21 us against
#     parallel split-K's 32.78-33.30 and cuBLAS's 32.3-33.0: 1.01-1.03x), not decode.m16 (14.7-15.2
#     against the unsplit 14.3-14.6) nor square.1024 (12.6+ against 9.8: same work per CTA plus the
#     reduction); searched on swapped decode kernels only. A shared tail (each CTA sums and stores 1/S
#     of the tile, run E) verified but ran 3.5% slower relative to parallel split-K: reverted. Next for
#     it: decode.m128's kernels all land at 32-34 us against a 25 us floor. Run F's 128x128 tiles split
#     four ways (half the activation re-reads) ran 34.5-37.7 us, but doubled the partials too: a clean
#     test is cluster split-K over 4 CTAs on 128x128 tiles, which the 120 resident CTAs of 4-CTA clusters
#     forbid at 32 tiles, or a persistent cluster-split scheduler. TMA-epilogue decode variants are untimed.
#     The four-CTA twin pass (2b) was weighed and left: it wins on bert-base.qkv only (README).
#  2d. Done in session 18: Kiln's activation functors (KernelConfig.activation_math, default "packed":
#     GELU on fp16 pairs, SiLU/sigmoid as tanh forms in FP32) took llama7b.up's fusion cost from +3.1% to
#     +0.3% (1.07 -> 1.09x) and bert-base.ffn1's from +10.3% to +8.9% (target <= 5%: missed there only);
#     the suite replay's geomean 1.000 -> 1.005 (gemm_h200_20261203_session18_b_replay.json). Cooperative
#     twins (run C) show ping-pong already hides half of the epilogue; per-warp stores -1% on the fused
#     kernel, a 64-wide subtile and 4 stores in flight nothing. An L2 prefetch of each tile's K blocks
#     past the pipeline lost on every shape (+20% to +55%) and was taken out (code at e6276d9).
#     Next for the fusion cost: three consumer warpgroups taking turns (two mainloops per epilogue).
#     Also session 18 (runs E, F): swapped operands give cuBLAS's 192-row tiling (ping-pong 128x192,
#     192 accumulators); now in the space for M > 128, it took bert-base.qkv from 0.95 to 1.02. Next:
#     a full suite search (`kiln bench gemm --limit 16`, every mid-size shape now times the tile; compile
#     on a CPU host first) and a replay of scripts/device/replay_session18.json for one geomean.
#  2e. Done in session 19: every replayed winner beside the swapped 128x192 tile (`kiln bench pairs
#     --tall-swapped`) and at each TMA L2 promotion (`--l2-promotion`). The tile (2x1) took bert-base.ffn1
#     (34.4 -> 33.3-33.5 us, fusion cost +9.2% -> +5.1%) and llama7b.qkv (277.3 -> 274.6); the cost model now
#     counts cluster padding (1x2 padded M = 2048's 11 tiles to 12 and lost 15-27%); L2 promotion 256 is a
#     leader twin (square.1024 -2%). Replay with leader twins: geomean 1.012 (session19_c_replay.json).
#     Next: (a) the full suite search (`kiln bench gemm --limit 16`, 151 distinct cubins, ~75 s each on one
#     CPU core: compile on a CPU farm or in two GPU runs); (b) done (run E): 2.x kernels carry a 1.3x
#     surcharge on wgmma hardware, decode.m16's search is back to its swapped kernels (1.05x; the 64x32x128
#     winner sits in the 16th slot: a further ranking fix for decode would give it room); (c) bert-base.ffn1's fusion cost is +5.1%
#     on the swapped kernel, which per-warp stores (not built for swapped/column-major D) could take under
#     5%; (d) attn_out (0.94) and square.1024 (0.91) stay the one-wave gaps.
#  2f. Done in session 20: the full suite search (`kiln bench gemm --limit 16`, the first since session 6:
#     geomean 1.011, gemm_h200_20261203_session20_d_search.json; compile the selection on the CPU host
#     first: `kiln compile --file .devcarry/gemm_problems.json --limit 16` (prepare_carry.sh writes it), ~75 min
#     on 2 cores, then prelude.sh suite_search);
#     equal-cost clusters pair CTAs along the problem's N (bert-base.ffn1's search now picks its swapped
#     2x1 tile); warm tuning 2.4-8.8 s per shape (module per cubin, batch-timed settling until the drift
#     stops, a first-pass GPU-time budget; phase_seconds says where the time goes); per-warp stores for
#     swapped kernels (their own 32-byte-swizzled slices), on the tall swapped tile whenever it has an
#     epilogue: bert-base.ffn1's fusion cost +3.7/+4.7% (run F). Next: (a) FIRST `bash
#     scripts/device/session20_g.sh` (the swapped per-warp-store GPU tests for bias and SiLU, in the space
#     but never run on a GPU); (b) re-search the fused shapes with those kernels in the space; (c)
#     square.8192's warm 7-8 s is its kernels' own time (first pass 2.7 s, re-time 1.8 s); (d) the
#     one-wave gaps (square.1024 0.92, attn_out 0.93) and decode.m64 (0.947, ceiling 1.08).
#  2g. Done in sessions 21-22: cuBLAS's decode clusters in Kiln's frames (README "Decode clusters"):
#     swapped 4x1 (decode.m16 1.12), plain 64x96x128 under 1x4 (decode.m64 1.00; 4-5% over 1x1 in run B),
#     swapped 1x2 token pairs multicasting the weight (decode.m128 64x64x64 30.0-30.3 us against 32.1-32.3).
#     Full suite search at d32314f: geomean 1.017 (gemm_h200_20261204_session22_d_search.json). Next:
#     (a) decode.m128's selection takes the pair at K 128 (31.2 us), the K 64 twin (30.0-30.3) shares its
#     diverse_top group: a K-depth split of that group for decode pairs; (b) decode.m16 (13.5-13.9 us, 1.15
#     needs 13.47 against cuBLAS's 15.5): 8x1 clusters (activation multicast over 8; check co-residency of
#     64 CTAs in 8-CTA clusters), a 256-deep K tile, and the ping-pong schedule on a one-tile-per-CTA grid
#     (one consumer warpgroup idles); (c) the one-wave gaps (square.1024 0.91, attn_out 0.935) are in-kernel.
#  2h. Done in session 23: (a) above, prune.k_depth_matters_for: decode.m128's search took the 64-deep pair,
#     1.115x (gemm_h200_20261204_session23_a_decode_search.json); (b) 8x1 and a 256-deep K tile tied or lost
#     on decode.m16 (gemm_pairs_h200_20261204_session23_a_decode_m16.json). decode.m16 stays at 1.08-1.12,
#     its 64 CTAs' fixed cost; what is left there is fewer fixed microseconds per CTA (a one-tile kernel
#     without the persistent scheduler's loop and with its pipeline primed before the grid dependency
#     wait), not more bandwidth. Next: the one-wave gaps (c) and the mid-size shapes at 0.98-0.99, where
#     the geomean's missing 3% sits (nvjet's 256x128 coopA and 192x128 coopB tiles on 1x2 clusters).
#  2i. Done in session 24: the single-consumer kernel (Schedule.single, CUTLASS's non-persistent
#     KernelTmaWarpSpecialized) on one-round grids, 1.4-3.2% under every persistent winner there (run A),
#     one consumer warpgroup beating two (run D), 1x1 clusters first. Next: the grids of two rounds or
#     less with big tiles (bert-large.ffn2's 128 tiles of 128x256, bert-large.attn_out's 256 of 128x128)
#     have no single twin (256 accumulators); two single CTAs per SM (64-row tiles, 264 resident) lost
#     14-37% there (run E). square.1024 (0.94 at best, its 128x64x64 single 1x1) is the shape left
#     below 0.95; its gap is per K step (the README's K sweep), not fixed cost any more.
#     Run I's profile (README "Known gaps": o_proj on nvjet's own tile, same HGMMA count, 1.7% more
#     stall samples, more at HGMMA, fewer warpgroup waits than nvjet) does not yet say which phase
#     holds the gap (stall samples count idle warps: Kiln's producer waits out its load tail there),
#     so time each phase with %globaltimer at its edges, per CTA, first. Deeper wgmma batching (a Kiln
#     collective deriving from CUTLASS's, code at d572cbb) lost 1-7% at 2 in flight, 6-70% at 3 (run J).
#  2j. Done in session 25: the wgmma issue order (run A, nvjet's row-block order, code at 0942f83) and
#     deeper batching for the single-consumer kernel (run C) are not the gap: +-0.5% and losses.
#     Run B's K sweep split the compute-bound gap into 0.6-1.3 us of fixed cost and a per-K rate
#     0.5-2.4% slower (worst on one-round grids); square.1024's single 64x128 streams K 30% slower
#     than cuBLAS's 128x64 at a smaller fixed cost. `kiln bench phases` (the phase clock, runs D/E/G)
#     shows launches at the 3.5 us event floor, CUTLASS's prologue 1.0-1.15 us (persistent) / 0.6 us
#     (single) before the first TMA load, 1.1-1.8 us more to the first data, and the last epilogue
#     0.45-2.0 us alone; store-path twins do not shorten it (run F). Run J: 0.5-0.74 us of the
#     prologue is before load_init (kernel start, parameter reads, barrier init) in every schedule;
#     the persistent kernels add 0.3-0.4 us after it (cluster wait, scheduler, setmaxnreg, GDC wait).
#     Next: (a) a one-tile kernel that issues its first TMA loads before the CTA-wide barrier
#     (barrier init and the first loads by the producer's elected thread, fenced, then the sync),
#     cuBLAS-style, to take part of the 1.1-1.8 us fill off the one-round shapes; (b) the stream-K
#     winners' launches (llama7b.up, bf16.llama7b.up, square.8192) carry a workspace memset that
#     adds about 2 us of event time (run G: 5.8 us outside the span against 3.8): a kernel that
#     leaves its barriers zeroed would save it; (c) square.1024's per-K rate: cuBLAS runs one
#     kernel at every K (run L: nvjet 128x64_64x8 on a 1x2 cluster), ~0.17 us a 64-deep k-block;
#     Kiln's single kernel 0.20 on 1x1 and 0.22 on 1x2 (run M: multicast slows its mainloop 25% at
#     K 1024). Run N: its consumers wait on data 52-69% of their mma() cycles (65-67% at K 4096;
#     o_proj 8%), so the load path starves it: next, the producer's side (cycles it waits on empty
#     stages vs TMA issue), TMA boxes spanning two k-blocks, and why 1x2 multicast does not help
#     (each multicast load waits for both CTAs' release); (d) the fused shapes' exposed last
#     epilogue (run G: about one epilogue, 0.9-1.0 us).
#  2k. Done in session 26: (b) stream-K kernels leave their barriers zeroed (Kiln's scheduler,
#     templates/streamk_self_clearing.cuh.j2; no memset per launch): 0.6-1.0 us a launch on
#     llama7b.up / bf16 up, not the 2 us session 25 guessed (run A); (d) per-warp stores on the
#     single-consumer kernel where no bias is staged: 0.5-2% on square.1024, attn_out, decode.m128;
#     on the persistent winners they tie or lose, and shallower pipelines on the single kernels lose
#     4-16% (run C). Full search at 3096d59: geomean 1.031, no shape below 0.95, decode.m16 1.113
#     (cuBLAS 2-3% faster on that machine start). Next: (a) above is still open (first TMA loads
#     before the CTA barrier in a Kiln copy of the single kernel: at most ~0.1 us by run J's clock);
#     (c) square.1024's starved loads: run D's Nsight Compute (README "Known gaps") says latency,
#     not bandwidth (crossbar 21-24% of peak, same 50.3 MB into the SMs for every kernel), and that
#     Kiln's 128x64 under 1x2 makes the L2 serve 1.00M sectors in 250k requests where its 1x1 twin
#     needs 0.69M / 171k and nvjet's 1x2 0.66M / 166k; run E: the same at every L2 promotion, and
#     the box split is CuTe's: count requests per k-block per CTA under multicast next. Also run E
#     had the 128x64 1x1 single kernel at 7.23 us with L2 promotion 0 against run D's 7.58 at 128,
#     but run F's interleaved pairs tie 0 and 128 within 0.7% on every single winner; stream-K
#     kernels still run without grid dependency control (CUTLASS 4.2's const is_last_tile binds a
#     private member to a non-const reference; Kiln's scheduler cannot reach those members, a CUTLASS
#     overlay patch would, at the price of every cached cubin).
#  2l. Session 28 (run A, the only device start it got: loans paused after it): Nsight Compute on
#     the decode winners (README "Known gaps", ncu_h200_20261205_session28_a_decode.json): each runs
#     its GEMM at cuBLAS's own kernel's speed and DRAM share (70-72% on m64/m128, 58% on m16's 64
#     CTAs); Kiln's lead on m16/m128 is cuBLAS's split-K reduce kernel. Not smem, crossbar or tensor
#     bound (22% / 45% / 45%); fewer bytes into the SMs (128x128 split 4) ran slower at lower DRAM
#     shares. Next: (a) `bash scripts/device/session28_b.sh` first: the GPU tests of
#     KernelConfig.l2_prefetch (templates/l2_prefetch_mainloop.cuh.j2: UTMAPF.L2 of the weight's
#     k-tile n ahead; compiled and SASS-checked on the CPU, never run), the decode winners and
#     llama7b.down beside their 8/16/32-ahead twins, and ncu on decode.m128's pf16 twin (does DRAM's
#     share rise past 72%?). Compile the twins on the CPU host first (`KILN_DATA_DIR=$PWD/.fleet-data
#     .venv/bin/python scripts/device/compile_twins.py scripts/device/session28_b_profile.json
#     session28_b`, ~6 min on 2 cores), then prepare_carry.sh. If a distance wins, put it
#     in the decode space (space._sm90_swapped_configs / DECODE_96_WIDE_TILES) and re-run the decode
#     search. (b) nvjet's two-slice decode.m128 kernel holds 72% DRAM where Kiln's two-slice twins
#     hold 63%: read how its slices walk K from its SASS (ncu --page source) before building an
#     interleaved split. (c) attn_out: cuBLAS's 192x128 tile as Kiln's tall swapped single kernel
#     lost 2-9% (run A's rider): the gap there is not the tile.
#  2m. Sessions 29-30 (H100s, then one H200 start in session 30 run C): the weight's L2 prefetch loses
#     everywhere (H200: m16 +14-30%, m64 +20-42%, m128 +2-9%, llama7b.down +3-6%); two CTAs per SM
#     (session30_a.py) lose 7-120%; half the stages cost m128 40%, m64 13%; one more stage (register
#     epilogue, session30_c.py) ties or loses. `kiln bench tile-floor` (H200): m16 and m64's winners
#     stream W as fast as a plain read in their tile order and occupancy (0.89-0.94 of linear);
#     decode.m128's is at 0.85 where its order's plain read at one CTA per SM reaches 0.95. Replay at
#     ddb3658: geomean 1.030. Session 32 (H100s only): the floors were register-bound (no launch bounds; fixed at
#     74c50e1); the intake floor answers (a) below: m128's winner intake reads at 0.79 of linear, 0.88
#     weight-only, and 128-row tiles on two K slices at 0.88 with their full intake (README).
#     Run D (session32_c.sh, H100): 128x64 cluster split-K twins lose 4-17% to the winner (its 1x2
#     weight multicast beats its own plain-read floor: 0.83 against 0.79). Half the activation bytes per
#     weight byte at 128 CTAs needs 128-row tiles on two K slices AND the weight multicast over the
#     token pair: four-CTA clusters (120 resident, one short of a round) or parallel split-K under a
#     1x2 cluster (session 22 run C: 32.0-34.4 us against the winner's 30.0-30.3 on the H200). Session 33 ran the
#     split twins and the intake floor again (H100 again: 1.00x, the same ratios); session32_d.sh still
#     holds them for an H200.
#     Earlier: (a) built in
#     session 30: `kiln bench intake-floor`, each winner's weight + all/half/no activation rows per
#     k-step at one CTA per SM: m128's 64x64 takes ~54 B/clk/SM in, m64's 28); if m128's 0.85 is
#     that ceiling (full intake ~0.85, weight alone ~0.95), the lever is fewer activation bytes
#     per weight byte into each SM without split-K partials (e.g. a 128-weight-row swapped tile under
#     cluster split-K on 128 CTAs, whose reduction is DSMEM). (b) a mainloop that feeds activations
#     to wgmma from registers (unswapped A) would cut the shared-memory intake but not the L2 one.
#  2n. Session 33 (every call got an H100): (a) `session33_a.sh`: stream-K forced onto the compute-bound
#     shapes' nearly full last round (o_proj, down, qkv, bert-large attn_out/ffn1/ffn2, bert-base.ffn2)
#     loses 2.5-43%, more the longer K; `session33_b.sh`'s Nsight Compute pass: sharing the tiles takes
#     DRAM reads 71 -> 127 MB (o_proj) and 192 -> 520 MB (down): staggered K offsets lose the L2.
#     (b) `session33_b.sh`: the first full suite search on an H100, geomean 1.036
#     (gemm_h100_20261206_session33_b_search.json; compile the selection on the CPU host first, 167
#     cubins, ~37 min on 2 cores). (c) `session33_c.sh`: cuBLAS's H100 pairing (128x256 under 2x1) ties
#     the winners and still reads 23% more L2 sectors than nvjet's kernel of the same tile and cluster:
#     that excess is CUTLASS's TMA load path (box split / multicast slice), the lead left for the
#     compute-bound 0.98s. Run D (session33_d.sh): Kiln and nvjet issue the same UTMALDG counts (one
#     unicast + one multicast per tile per k-block), so compare TMA box shapes and L2 promotion next
#     (Kiln's are in its launch meta; nvjet's only in ncu's memory-workload tables). Run C's counters:
#     nvjet reads 421 MB from L2 for 805 MB into the SMs, under the 537 MB a one-operand 2-CTA multicast
#     needs (Kiln 510); the L2 fabric's sectors (2.0M nvjet, 2.4-2.8M Kiln) do not explain it. Find how
#     nvjet's pair shares more: ncu's per-instruction memory table on its UTMALDG rows (bytes a request).
#     The H200 figures (replay at ddb3658) stand; if an H200 ever serves a call, `suite_replay` at main.
#  2o. Sessions 34-35 (H100s): `kiln bench power` (bench/power_draw.py, NVML clock and energy per launch under
#     sustained load; `--data zeros` takes the tensor cores' data toggles away). At the 700 W cap on random
#     operands Kiln's compute-bound winners need 0.92-1.00x nvjet's cycles but get a 0.95-1.00x clock; on
#     zeros they tie or lead (square.8192 1.05x) while drawing 5-19% more watts: the 0.98s are power Kiln
#     burns outside the data path (README "The compute-bound 0.98s are power"). Multicast, cuBLAS's pairing
#     and swapped operand roles (session35_a.py: the weight as wgmma's A) move it by ~1% at most; swapped
#     256x128 1x2 is 0.3-0.5% ahead on o_proj/down in burst timing only. Next: (a) what burns the excess at
#     equal HGMMA counts: build twins that change one non-datapath behaviour each and compare watts at
#     --data zeros. FIRST `bash scripts/device/session35_c.sh` (prepared, never run: the device budget ran
#     out on failed starts): o_proj's winner beside L2 promotion 0/256, raster along N, swizzle 8, a register
#     epilogue, 3 stages and 128x128 ping-pong; compile its cubins on the CPU host first
#     (`KILN_DATA_DIR=$PWD/.fleet-data .venv/bin/python scripts/device/compile_twins.py
#     bench/results/gemm_h100_20261206_session33_b_search.json scripts/device/session35_c_twins.json`), then
#     prepare_carry.sh; it ends with the winner under KILN_PDL=0 (Kiln launches with programmatic dependent
#     launch, torch's cuBLAS calls without). CUTLASS's ClusterBarrier::wait already passes a suspend-time
#     hint of 0x989680, so blocking waits do not spin; consumer_try_wait's first probe has none. The lead
#     by count (session 33 run D's SASS page, `kiln bench sass-mix`): Kiln's winner executes 2.19M per-thread
#     integer/move instructions and 268k alpha FMULs where nvjet executes 0.88M and none (~17 against ~7 per
#     consumer warp and k-block; nvjet keeps its loop bookkeeping in uniform registers), but by operation
#     count ~0.1% of the math (README); the 1x1 twin (the L2 serves all 805 MB, not 510) matched the winner's
#     watts, so the L2 is ruled out. (b) the suite's burst timing re-enters the cap from idle every turn (the sleep
#     kernel before each): a kernel that draws more is likely clocked down sooner there (`bash
#     scripts/device/session35_d.sh`: `kiln bench turns`, each launch's time by its place in the turn) (o_proj 0.974 burst against
#     0.992 sustained); (c) an H200 replay at main (`suite_replay`) if an H200 ever serves a call.
#  2p. Session 36 (an H200 came on the sixth try): session 35's runs C and D, then o_proj/down with PDL
#     off (session36_a.sh, session36_b.sh). `kiln bench power` launches back to back, where Kiln's PDL
#     launches overlap the previous tail and torch's cuBLAS calls do not: with KILN_PDL=0 o_proj's winner
#     needs 2.0% more cycles than nvjet at the same clock and watts (down 0.7%), the suite's per-launch
#     timing is flat through the turn (PDL on or off), and only square.8192's 100 ms turns show the cap
#     biting (Kiln 0.960 -> 1.047 of cuBLAS's time). No one-change twin draws fewer watts. Run C (an
#     H100): o_proj's K sweep puts 0.8 us in fixed cost and 2% in the mainloop's rate. Next: (a) the
#     consumer mainloop's per-k-block bookkeeping (README, ~17 vs 7 per-thread instructions per warp and
#     k-block): a mainloop that keeps it on the uniform datapath, timed with KILN_PDL=0 on an H200 with
#     `kiln bench power` and `kiln bench pairs --ksweep --ksweep-only llama7b.o_proj`; (b) the H200
#     suite replay at main (no kernel code changed since ddb3658, so it only re-measures); (c) repeat
#     session36_b.sh on an H100 (the session 35 H100 "cycles 0.92-1.00" were taken with PDL on).
#  2q. Session 37 (two H100 starts, then only failed ones): (a) odd-width tiles build (CuTe's extended
#     wgmma widths, B's K atoms side by side for an odd number of 8-row groups), but decode.m64's 88-row
#     tiles (126 CTAs) ran 5% slower than the 96-row tile (CuTe splits B into eleven 2 KB TMA boxes a
#     stage; a fair test needs one 4-D box); (b) 32-deep k-tiles lose 2.5-41% on seven compute-bound
#     winners. Next: FIRST `bash scripts/device/session37_c.sh` on an H200 (prepared, never run):
#     cluster split-K with interleaved K slices (split_k_interleave, `_skci`) on decode.m128's swapped
#     64x128 and decode.m16's 64x16, beside the contiguous slices and the winners. Compile on the CPU
#     host first (`KILN_DATA_DIR=$PWD/.fleet-data .venv/bin/python scripts/device/compile_twins.py
#     session37_c`, ~2.5 min; its GPU test's cubin is the 64x128x64 `_skci` one), then prepare_carry.sh.
#     If interleaving lifts the split's DRAM share to the one-slice kernels' 70%, put `_skci` in the
#     swapped decode space (space._sm90_variants' cluster_split) and re-run the decode search.
#  2r. Session 38 (every device start failed; the budget went on failed starts): odd-width tiles now
#     load B in one four-dimensional TMA box a stage (templates/one_box_b_mainloop.cuh.j2, OneBoxB over
#     B viewed as ((8, N/8), (64, K/64), L): UTMALDG.5D where CuTe's flat view gave one box per 8x64
#     atom); prune.odd_width_b_divides and the params builder keep N % 8 / K % 64 problems away.
#     Next: FIRST `bash scripts/device/session38_a.sh` on an H200 (decode.m64's 88-row twins beside the
#     winner, the odd-width and interleaved GPU tests, then session 37 run C's interleaved K slices);
#     compile on the CPU host first (`KILN_DATA_DIR=$PWD/.fleet-data .venv/bin/python
#     scripts/device/compile_twins.py session38_a session37_c`, plus the GPU tests' odd-width bias
#     cubin and the interleaved one, ~4 min on 2 cores), then prepare_carry.sh. If the 88-row tile now
#     beats the 96-row winner, add (64, 88, 128) under 1x1 and 1x2 (TMA epilogue) to the decode space
#     beside DECODE_96_WIDE_TILES and re-run the decode.m64 search.
#  2s. Session 39 (H100s, asked for as H200s): session 38 run A first found every 88-row twin refused
#     in verification (the tail test cut K by 24; gpu_bench.tail_cuts now cuts whole 64-wide atoms),
#     then, fixed, timed them: 88 rows under 1x1 37.22 / 37.44 us against the 96-row winner's 37.12 /
#     37.12 (1x4) and cuBLAS's 36.93 / 36.67: one box a stage closed session 37's 5% to 0.3-0.9%, no
#     win; not searched. Interleaved cluster split-K slices (session 37 run C) lose 4-8% on
#     decode.m128; not searched. All 102 GPU tests passed (H100). Next: FIRST
#     `bash scripts/device/session39_c.sh` on an H200 (the suite replay at main: the standing H200
#     figures were last replayed at ddb3658); compile on the CPU host first
#     (`compile_twins.py bench/results/gemm_h200_20261204_session26_c_search.json
#     bench/results/gemm_h100_20261206_session33_b_search.json`, 19 cubins, ~11 min on 2 cores), then
#     prepare_carry.sh. decode.m128's last ~10% needs four-CTA clusters (two K slices by two token
#     tiles sharing each weight k-tile by multicast; README, Known gaps), which no template expresses.
#  2t. Session 40 (H100s, asked for as H200s): session39_c.sh replayed session 33 run B's H100 winners at
#     main: geomean 1.031 (the search's 1.036), every ratio within 1% but decode.m16 and square.8192
#     (gemm_h100_20261207_session40_a_replay.json; run E on a second start: 1.032, decode ratios 2-4%
#     apart between starts): sessions 34-39 moved no winner. session36_b.sh on an
#     H100: with PDL off o_proj needs 1.6% more cycles than nvjet at a 1.1% lower clock (H200: 2.0% at
#     the same clock). All 102 GPU tests passed (H100). Next: FIRST, if an H200 ever serves a call,
#     `bash scripts/device/session39_c.sh` (compile its 19 winners on the CPU host first, ~5-11 min on
#     2 cores: compile_twins.py on the two result files named in 2s, then prepare_carry.sh); the
#     standing H200 figures are still session 30 run D's (ddb3658).
#  2u. Session 41: the consumer loop unrolled over the stages (KernelConfig.lean_consumer,
#     templates/lean_consumer_mainloop.cuh.j2; item 2p(a)): per-thread instructions per k-block in the
#     steady-state loop 11-12 -> 1.0-1.5 (cooperative, ping-pong), 4 -> 0.4-0.8 (single 1x1), by
#     cuobjdump. Run A (`session41_a.sh`, an H100) timed each compute-bound winner beside its lean twin:
#     ties within 0.3% (o_proj, down, attn_out, qkv), +0.5-0.8% on bert-large.attn_out and ffn2; o_proj's
#     cycles per launch under `kiln bench power` (PDL off) 1.012 of nvjet's against the winner's 1.007.
#     The bookkeeping lead is closed; not searched. Next: FIRST, if an H200 ever serves a call,
#     `bash scripts/device/session39_c.sh` (2t). The remaining compute-bound lead is nvjet's pairing
#     (2n: 421 MB from L2 for 805 MB into the SMs, Kiln 510), read in ncu's per-instruction memory table.
#  2v. Session 42 (no device start: two failed, then none lent): nvjet's "coopB" tiles built as the
#     cooperative kernel with its warpgroups side by side along N (KernelConfig.wg_split_n, `_wn`; README
#     "Warpgroups side by side along N"): 192x128 (cuBLAS's tile on bert-base.attn_out, Kiln's worst
#     shape at 0.965, and ffn2), 192x192 (bert-base.qkv, llama7b.up; its subtile in 32-column atoms)
#     and 320x128 (square.8192), 64-row x whole-N epilogue subtiles, one store stage allowed (192x128
#     and 192x192 then get nvjet's five and four stages). None has run on a GPU yet.
#     Next: FIRST `bash scripts/device/session42_a.sh` (its GPU tests, then each winner beside its
#     split-N twins; compile on the CPU host first: `KILN_DATA_DIR=$PWD/.fleet-data .venv/bin/python
#     scripts/device/compile_twins.py session42_a`, ~2-8 min on 2 cores, then prepare_carry.sh). If a
#     twin wins, add the split-N tiles to space.py for M > 128 (prune.accumulator_registers: M*N/256 a
#     thread) and re-run the suite search; then, on an H200, session39_c.sh's replay (2t).
#  2w. Session 43 (an H100 on the seventh start; six failed or were refused): session42_a.sh: the six
#     split-N GPU tests pass, and every split-N twin loses 5-20% to the stored winners (attn_out
#     192x128 14.3-15.1 us against 12.9-13.0, cuBLAS 12.5-12.6; gemm_pairs_h100_20261207_session43_a_split_n.json):
#     not searched. The H100 replay at 8a6b1eb: 1.028, every winner the same kernel (session43_b_replay).
#     Next: FIRST `bash scripts/device/session43_c.sh` (prepared, never run: the device time ran out on
#     failed starts): 192x256 split-N, 64x128 atoms, on llama7b.qkv (four whole waves), o_proj and
#     square.8192: is run A's loss the 64-wide atoms' shared-memory reads? Compile first on the CPU host
#     (`KILN_DATA_DIR=$PWD/.fleet-data .venv/bin/python scripts/device/compile_twins.py session43_c`,
#     ~1 min), then prepare_carry.sh. If it beats llama7b.qkv's winner, put 192x256 split-N in
#     space._sm90_configs for M > 128. On an H200, session39_c.sh (2t).
#  2x. Session 44 (H100s again; two failed starts): session43_c.sh (run A) confirmed the 64-wide atoms
#     as the split-N loss: 192x256 (64x128 atoms) ran llama7b.qkv 274.1 / 274.5 us against the winner's
#     275.2 / 276.0 and tied square.8192. Run B (session44_b.sh): it loses 10-25% at short K (bert
#     shapes, fused or not) and on llama7b.up, wins llama7b.qkv again (273.0 / 273.2 against 275.4);
#     its GPU tests pass. Now searched for K >= 2048 (space.sm90_split_n_configs). Run C
#     (session44_c.sh): the search picks it on llama7b.qkv (0.994 against 0.985-0.988) and square.8192;
#     run D (session44_d.sh, H100 branch): the H100 replay with those winners 1.031. Next: FIRST, if an
#     H200 ever serves a call, `bash scripts/device/session44_d.sh` (its H200 branch: the search on
#     llama7b.qkv and square.8192, then session 26 run C's replay for the standing H200 figures; compile
#     first as its header says). On the H100, square.8192's winner is a coin toss between machines: a
#     pairs run of the split-N and the 256x128 stream-K kernels over several machine starts would say.
#  3. The 2.x LinearCombination pays the same alpha/beta FMUL+FFMA per element (session 12 run B's
#     conv profile): ScaleType::OnlyAlphaScaling for 2.x epilogues without a source, if 2.x kernels
#     ever matter on a Hopper host (they win nothing on the H200 today).
# Recipe: build the carry with scripts/device/prepare_carry.sh; source scripts/device/prelude.sh on
# the device; carry .whl and .devcarry; end every run that compiles there with return_new_cache.
set -u
source scripts/device/prelude.sh
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_skinny_gpu.py -m gpu > $OUT/skinny_tests.log 2>&1
echo "skinny gpu tests rc=$?"; grep -E "passed|failed|^FAILED|^E  " $OUT/skinny_tests.log | head -12 | cut -c1-250
timeout 200 python3 -m bench.gemm_pairs --decode-ksweep --out $OUT/decode_ksweep.json > $OUT/ksweep.log 2>&1
echo "ksweep rc=$?"; grep "^decode" $OUT/ksweep.log | cut -c1-150
timeout 330 python3 -m bench.gemm_pairs --skinny --out $OUT/skinny_pairs.json > $OUT/pairs.log 2>&1
echo "pairs rc=$?"; for s in decode.m16 decode.m64 decode.m128 decode.m16.bias_gelu; do grep "^$s " $OUT/pairs.log | head -4 | cut -c1-150; done
timeout 560 python3 -m bench.gemm_suite --suite .devcarry/suite.json --limit 16 --warm 1 --out $OUT/gemm.json > $OUT/gemm.log 2>&1
echo "gemm rc=$?"; grep -v '^{' $OUT/gemm.log | tail -24 | cut -c1-150
return_new_cache
