"""Hardware-specific pruning (BOLT's guidelines plus hard limits), each rule a named, tested function.

A rule returns None to keep a config, or a short reason to drop it. `prune()` applies them in
order and reports what each removed, so `kiln compile --explain` can show the whole funnel. What
survives is ranked by a first-order cost model (waves × tile time), and the best `limit` are kept.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from worker.kernels import streamk
from worker.kernels.config import (
    Decomposition,
    EpilogueSchedule,
    Family,
    KernelConfig,
    Schedule,
    TileScheduler,
)
from worker.kernels.hardware import Hardware
from worker.kernels.problem import GemmProblem
from worker.kernels.render import (
    ODD_WIDTH_GROUP_ROWS,
    ODD_WIDTH_K_ATOM,
    SKINNY_A_PAD,
    SKINNY_A_SMEM_KB,
    epilogue_subtile,
    odd_group_width,
)
from worker.kernels.space import SWAP_AB_MAX_M

Rule = Callable[[KernelConfig, GemmProblem, Hardware], str | None]
ELEMENT_BYTES = 2


def _tiles(cfg: KernelConfig, p: GemmProblem) -> int:
    return math.ceil(p.m / cfg.tile[0]) * math.ceil(p.n / cfg.tile[1]) * p.batch


def _launched_tiles(cfg: KernelConfig, p: GemmProblem) -> int:
    """The tiles a kernel's CTAs run: CUTLASS rounds each grid dimension up to its cluster's (1x1
    for every family but the sm90 ones), and a padding CTA still runs its mainloop (its cluster
    peer needs its multicast). Swapped 128x192 tiles on llama7b.qkv (M = 2048: 11 tiles of 192, 12
    under a 1x2 cluster) ran 345 µs under 1x2 against 272 under 2x1 (session 19 run A)."""
    cx, cy = cfg.cluster
    return (math.ceil(math.ceil(p.m / cfg.tile[0]) / cx) * cx * math.ceil(math.ceil(p.n / cfg.tile[1]) / cy) * cy
            * p.batch)


# CUTLASS's TMA epilogue keeps two subtile stores in flight unless epilogue_store_stages says otherwise.
CUTLASS_EPILOGUE_STORE_STAGES = 2


def more_stores_than_cutlass(cfg: KernelConfig) -> bool:
    """A "more stores in flight" twin, which only store-bound problems earn. Fewer stores than
    CUTLASS's (the split-N tile's one) give shared memory back to the mainloop instead."""
    return cfg.epilogue_store_stages > CUTLASS_EPILOGUE_STORE_STAGES


def _sm90_epilogue_smem(cfg: KernelConfig) -> int:
    if cfg.epilogue_schedule is EpilogueSchedule.nosmem and cfg.family is not Family.sm90_conv_fprop:
        return 0
    # The subtile the kernel gets (render.epilogue_subtile); CUTLASS keeps two of them in flight
    # for D (epilogue_store_stages changes that); a residual C gets up to four buffers, which D then
    # reuses (sm90_epilogue_tma_warpspecialized.hpp, ReuseSmemC).
    rows, cols = epilogue_subtile(cfg)
    subtiles = max(1, (cfg.tile[0] // rows) * (cfg.tile[1] // cols))
    stores = min(subtiles, cfg.epilogue_store_stages or CUTLASS_EPILOGUE_STORE_STAGES)
    buffers = max(min(subtiles, 4), stores + 1) if cfg.epilogue.parts.residual else stores
    return rows * cols * ELEMENT_BYTES * buffers + 1024


def smem_capacity(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """The pipeline must fit the per-block shared memory (228 KB sm_90, 164 KB sm_80)."""
    per_stage = stage_bytes(cfg)
    if cfg.is_2x:
        need = cfg.stages * per_stage
    else:
        need = (cfg.stages or 2) * per_stage + _sm90_epilogue_smem(cfg) + 512
    return None if need <= hw.smem_per_block else f"needs {need // 1024} KB smem > {hw.smem_per_block // 1024} KB"


# sm90 consumer warpgroups run with 240 registers a thread (setmaxnreg; the producer gives its own
# back), so a ping-pong 128x192 tile's 192 accumulators fit: swapped, it is cuBLAS's 192-row tiling
# and won bert-base.qkv (session 18 run E). Plain kernels stay at 128: 192-accumulator plain tiles
# were never measured, and the search should not take them on the model's word.
SM90_TALL_SWAPPED_ACCUMULATORS = 192
# The single-consumer kernel (Schedule.single) has no setmaxnreg, but only 256 threads, so up to 255
# registers a thread: its one warpgroup held bert-base.attn_out's plain 128x192 tile (192
# accumulators) and ran it 3% faster than the cooperative winner (session 24 run A).
SM90_SINGLE_ACCUMULATORS = 192
# The split-N cooperative 192x256 tile (space.sm90_split_n_configs): three 64x128 atoms a warpgroup,
# 192 accumulators, 232 registers a consumer thread and no local memory (cuobjdump, session 43).
SM90_SPLIT_N_ACCUMULATORS = 192


def accumulator_registers(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """fp32 accumulators per thread must leave room in 255 registers (about 128 at most; 192 for the
    swapped 128x192 ping-pong tile and the split-N 192x256 one, measured)."""
    tm, tn, _ = cfg.tile
    if cfg.is_2x:
        per_thread = cfg.warp[0] * cfg.warp[1] // 32
    elif cfg.schedule is Schedule.cooperative:
        per_thread = tm * tn // 256  # two consumer warpgroups share the tile
    else:
        per_thread = tm * tn // 128  # ping-pong, single: each consumer warpgroup owns a whole tile
    limit = SM90_TALL_SWAPPED_ACCUMULATORS if cfg.swap_ab and not cfg.is_2x else 128
    if cfg.wg_split_n:
        limit = SM90_SPLIT_N_ACCUMULATORS
    if cfg.schedule is Schedule.single:
        limit = SM90_SINGLE_ACCUMULATORS
    return None if per_thread <= limit else f"{per_thread} accumulators per thread"


def warps_per_block(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """BOLT: 4 or 8 warps per threadblock (fewer starve the tensor cores, more thrash registers)."""
    if not cfg.is_2x:
        return None
    warps = cfg.threads // 32
    return None if warps in (4, 8) else f"{warps} warps"


def large_warp_tiles(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """BOLT: prefer large warp tiles for their compute/memory ratio (at least 64x32) — except in
    the smallest threadblock (64x64), which needs 32x32 warps to keep four of them: without it a
    tiny problem would have no kernel left that fills the GPU."""
    if not cfg.is_2x:
        return None
    wm, wn, _ = cfg.warp
    if cfg.tile[:2] == (64, 64) and (wm, wn) == (32, 32):
        return None
    return None if wm * wn >= 64 * 32 else f"warp tile {wm}x{wn} too small"


def cooperative_tile_m(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """The cooperative schedule splits tile M across two warpgroups of 64 rows each."""
    if cfg.schedule is Schedule.cooperative and cfg.tile[0] < 128:
        return "cooperative needs tile M >= 128"
    return None


def tile_fits_problem(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """A tile much larger than the problem only computes padding.

    The one exception is the cooperative schedule's 128-row minimum: with stream-K it is the only
    sm90 kernel that can spread a skinny (decode) GEMM's K loop over every SM, and a memory-bound
    problem pays little for the idle rows.
    """
    tm, tn, tk = cfg.tile
    floor_m = 128 if cfg.schedule is Schedule.cooperative and cfg.tile_scheduler is TileScheduler.streamk else 64
    cap_m = max(floor_m, 1 << math.ceil(math.log2(p.m)))
    cap_n = max(64, 1 << math.ceil(math.log2(p.n)))
    if tm > cap_m or tn > cap_n:
        return f"tile {tm}x{tn} larger than the problem"
    if tk > max(32, p.k):
        return f"tile K {tk} larger than K"
    return None


def fills_the_gpu(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """BOLT: small problems get smaller threadblocks so the grid covers the SMs (waves, tail).

    Split-K and stream-K configs are exempt: they fill the SMs by dividing K instead.
    """
    if cfg.split_k > 1 or cfg.tile_scheduler is TileScheduler.streamk:
        return None
    tiles = _tiles(cfg, p)
    smaller_possible = cfg.tile[0] > 64 or cfg.tile[1] > (64 if cfg.is_2x else 32)  # smallest tile per family
    if tiles < hw.sm_count // 2 and smaller_possible:
        return f"{tiles} tiles for {hw.sm_count} SMs"
    return None


def alignment_fits(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """Vector width must divide each operand's leading dimension; TMA needs 16-byte rows."""
    allowed = p.max_alignment()
    if any(a > b for a, b in zip(cfg.alignment, allowed, strict=True)):
        return f"alignment {cfg.alignment} > {allowed}"
    if cfg.family is Family.sm90_tma:
        if cfg.alignment[0] < 8 or cfg.alignment[1] < 8:
            return "TMA loads need 16-byte aligned rows of A and B (pad to a multiple of 8)"
        if cfg.epilogue_schedule is EpilogueSchedule.tma and cfg.alignment[2] < 8:
            return "TMA epilogue needs 16-byte aligned rows of D"
    if cfg.is_2x and (cfg.alignment[0] < 2 or cfg.alignment[1] < 2):
        return "2.x tensor-op kernels need at least 32-bit loads"
    return None


def odd_width_b_divides(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """An odd-width tile loads B through a view of whole 8-row groups and 64-wide K atoms
    (render.k_first_b_atoms, one_box_b_mainloop.cuh.j2): a partial group or atom would read the next
    row's elements where TMA's bounds check gives zeros. Seen in the kernel's frame."""
    if not odd_group_width(cfg):
        return None
    rows, atom = ODD_WIDTH_GROUP_ROWS, ODD_WIDTH_K_ATOM
    if p.n % rows or p.k % atom:
        return f"an odd-width tile's B view needs N % {rows} == 0 and K % {atom} == 0 (N={p.n}, K={p.k})"
    return None


def split_k_worthwhile(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """Split K only when the tiles alone leave SMs idle and each slice keeps a deep K loop."""
    if cfg.split_k == 1:
        return None
    tiles = _tiles(cfg, p)
    if tiles >= hw.sm_count:
        return f"{tiles} tiles already fill {hw.sm_count} SMs"
    if p.k // cfg.split_k < 4 * cfg.tile[2]:
        return f"K/{cfg.split_k} too shallow"
    if tiles * cfg.split_k > 2 * hw.sm_count * resident_blocks(cfg, hw):
        return "more slices than two waves"
    return None


def resident_blocks(cfg: KernelConfig, hw: Hardware) -> int:
    """Blocks of one kernel an SM runs at once. A skinny (decode) GEMM is bound by the bytes each
    SM has in flight, so a 2.x kernel whose shared memory lets an SM hold several blocks may split K
    into that many more slices. SM90 kernels size their pipeline to fill the SM: one block."""
    if cfg.family in (Family.sm90_tma, Family.sm90_conv_fprop):
        return 1
    threads = cfg.threads
    by_smem = hw.smem_per_block // smem_need(cfg)
    by_regs = 65536 // (threads * 128)  # 2.x tensor-op kernels use up to ~128 registers a thread
    return max(1, min(by_smem, by_regs, 2048 // threads))


def parallel_split_divides_k(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """Parallel split-K slices K into equal parts whose rows TMA can address (16-byte strides);
    a K that does not divide would run as one slice, all cost and no gain."""
    if cfg.split_k_mode != "parallel" or cfg.split_k == 1:
        return None
    if p.k % cfg.split_k or (p.k // cfg.split_k) % 8:
        return f"K={p.k} does not split into {cfg.split_k} slices of 16-byte rows"
    return None


def cluster_split_in_one_wave(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """Cluster split-K runs one tile per cluster, its slices side by side: every cluster must be
    resident at once (a second round would pay the whole mainloop again for a few tiles) and
    together they must fill at least half the SMs (fills_the_gpu's bar), the slice
    count must be a cluster the hardware launches, and K's tiles must divide evenly among the
    slices (the kernel otherwise runs fewer slices: the same launch as a smaller count). And one
    tile must span N, which for the swapped decode kernels it is offered to is the tokens: on
    decode.m128 the 128x64 tiles (two token tiles per 128 rows of W, each cluster streaming its
    rows of W itself, with no persistent raster to pair them in L2) ran 39.1-39.6 µs and the 64x128
    ones 32.2-33.6 (gemm_pairs_h200_20261203_session17_a_cluster_split.json)."""
    if cfg.split_k_mode != "cluster" or cfg.split_k == 1:
        return None
    if cfg.split_k > max(1, hw.max_cluster):
        return f"{cfg.split_k} slices > a {hw.max_cluster}-CTA cluster"
    ctas = _tiles(cfg, p) * cfg.split_k
    if ctas > hw.resident_ctas(cfg.split_k):
        return f"{ctas} CTAs in {cfg.split_k}-CTA clusters: more than one round"
    if ctas < hw.sm_count // 2:
        return f"{ctas} CTAs for {hw.sm_count} SMs"
    if math.ceil(p.k / cfg.tile[2]) % cfg.split_k:
        return f"{math.ceil(p.k / cfg.tile[2])} K tiles do not split into {cfg.split_k} equal slices"
    if math.ceil(p.n / cfg.tile[1]) > 1:
        return f"{math.ceil(p.n / cfg.tile[1])} tiles along N would each stream the same rows of A"
    return None


def launch_cluster_size(cfg: KernelConfig) -> int:
    """CTAs per cluster at launch: the multicast cluster, or cluster split-K's slices."""
    if cfg.split_k_mode == "cluster":
        return cfg.split_k
    return cfg.cluster[0] * cfg.cluster[1]


def streamk_for_tails(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """Stream-K pays when the last wave is mostly empty; otherwise the persistent scheduler wins.
    Forcing it onto a nearly full last round to take back its idle 3% lost 2.5-43% on the H100
    (llama7b.o_proj, down and qkv, bert-large.attn_out/ffn1/ffn2, bert-base.ffn2; session 33 run A,
    gemm_pairs_h100_20261206_session33_a_streamk.json), more the longer K (README, Known gaps)."""
    if cfg.family is not Family.sm90_tma or cfg.tile_scheduler is not TileScheduler.streamk:
        return None
    tiles = _tiles(cfg, p)
    waves = tiles / hw.sm_count
    tail = waves - math.floor(waves)
    if waves >= 1 and (tail == 0 or tail > 0.75) and cfg.split_k == 1:
        return f"{waves:.2f} waves: no tail worth balancing"
    return None


def streamk_runs_as_asked(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """A stream-K launch that CUTLASS's scheduler would run data-parallel is the persistent kernel
    plus the stream-K scheduler's overhead (res5.1x1c's 128x64x128: 14.3 against 13.8 µs on the H200,
    conv2d_h200_20261130_session9_d.json), and forcing stream-K where the heuristic already chose
    it is the same launch twice (worker/kernels/streamk.py says which is which)."""
    if cfg.family is not Family.sm90_tma or cfg.tile_scheduler is not TileScheduler.streamk or cfg.split_k > 1:
        return None
    plan = streamk.plan(cfg, p.m, p.n, p.k, hw.sm_count)
    if plan.mode == "data_parallel":
        return "CUTLASS would run it data-parallel" if cfg.decomposition is Decomposition.heuristic else \
            "too little K to share: it would run data-parallel"
    if cfg.decomposition is Decomposition.streamk and \
            streamk.plan(replace(cfg, decomposition=Decomposition.heuristic), p.m, p.n, p.k, hw.sm_count) == plan:
        return "CUTLASS's heuristic already shares these tiles"
    return None


def pingpong_without_streamk(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """CUTLASS's ping-pong kernel does not support the stream-K scheduler (static assertion)."""
    if cfg.schedule is Schedule.pingpong and cfg.tile_scheduler is TileScheduler.streamk:
        return "ping-pong has no stream-K"
    return None


def _one_round(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> tuple[bool, int, int]:
    """Whether every CTA of the launch (its tiles rounded up to the cluster) is resident at once,
    with the tile and resident-CTA counts that say so."""
    tiles, resident = _launched_tiles(cfg, p), hw.resident_ctas(launch_cluster_size(cfg))
    return tiles <= resident, tiles, resident


def single_in_one_round(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """The single-consumer kernel launches a CTA per tile: past one round of co-resident CTAs the
    hardware starts the rest as earlier ones finish, and no CTA's epilogue overlaps another tile's
    mainloop, which is what the persistent schedules are for."""
    if cfg.schedule is not Schedule.single:
        return None
    fits, tiles, resident = _one_round(cfg, p, hw)
    return None if fits else f"{tiles} tiles: more than one round of {resident} CTAs"


def pingpong_in_one_round(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """Where the grid is one round of CTAs, every persistent ping-pong CTA gets one tile and its
    second consumer warpgroup idles: the single-consumer twin runs the same warpgroup's work without
    the scheduler's loop and the warpgroups' order barrier. On the H200 it won on every one-round
    suite grid, both turns (session 24 run A, gemm_pairs_h200_20261204_session24_a_single.json):
    square.1024 9.38/9.42 -> 9.12/9.12 µs, decode.m16 13.86/13.89 -> 13.63/13.60, decode.m64
    27.42/27.39 -> 26.77/26.75, decode.m128 30.08/30.10 -> 29.65/29.68 (and bert-base.attn_out's
    cooperative 128x192 13.39/13.28 -> 12.94/12.98, which stays in the search beside its twin).
    Data-parallel persistent ping-pong only: split-K and stream-K kernels are other launches."""
    if (cfg.family is not Family.sm90_tma or cfg.schedule is not Schedule.pingpong
            or cfg.tile_scheduler is not TileScheduler.persistent or cfg.split_k > 1 or cfg.split_k_mode != "none"
            # with a bias the single twin keeps CUTLASS's stores (space.single_consumer_stores)
            or (cfg.warp_stores and cfg.epilogue.parts.bias)):
        return None
    fits, tiles, _ = _one_round(cfg, p, hw)
    return f"{tiles} tiles in one round: the single-consumer twin runs it" if fits else None


def cluster_useful(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """A 2-CTA cluster multicasts a tile to both CTAs: it needs two tiles along that dimension.
    A decode pair that covers every token (decode_multicast) is the exception: one cluster along
    the tokens is the point there (decode.m128's weight streamed once, session 22 run C)."""
    if decode_multicast(cfg, p):
        return None
    cm, cn = cfg.cluster
    if cm > 1 and math.ceil(p.m / cfg.tile[0]) < 2 * cm:
        return "cluster M without enough M tiles"
    if cn > 1 and math.ceil(p.n / cfg.tile[1]) < 2 * cn:
        return "cluster N without enough N tiles"
    return None


def cluster_fits_hardware(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """A cluster the hardware launches and CUTLASS's multicast can split a tile over: powers of two,
    at most the portable cluster size (8 on Hopper)."""
    cm, cn = cfg.cluster
    if cm & (cm - 1) or cn & (cn - 1) or cm < 1 or cn < 1:
        return f"cluster {cm}x{cn} is not a power of two"
    if cm * cn > max(1, hw.max_cluster):
        return f"cluster {cm}x{cn} exceeds {hw.arch}'s {hw.max_cluster}-CTA clusters"
    return None


def four_cta_cluster_without_an_extra_round(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """Four-CTA clusters only where the SMs they leave idle cost no round of tiles. The H200 holds
    30 of them (120 CTAs, Hardware.cluster4_ctas), so a one-wave grid of 128 tiles runs two
    rounds (bert-base.attn_out +48%, square.1024 +23% against the 1x2 winner) and most many-tile
    grids one more (bert-large.qkv, 768 tiles, 6 → 7: +9%); only where the rounds stay equal did
    the extra multicast pay (bert-base.qkv, 576 tiles, 5 either way: 2x2 −2.3%, 4x1 −2.6%;
    gemm_pairs_h200_20261202_session16_b_clusters.json). Many rounds only: with two or fewer
    every CTA's share of the idle SMs is a large part of its work. A necessary condition, not a
    sufficient one: the default space offers no four-CTA cluster (space.SM90_CLUSTERS says why)."""
    size = cfg.cluster[0] * cfg.cluster[1]
    if size <= 2:
        return None
    if cfg.tile_scheduler is not TileScheduler.persistent and cfg.schedule is not Schedule.single:
        return f"{size}-CTA clusters are measured with the persistent and single-consumer kernels only"
    units = _tiles(cfg, p) * cfg.split_k
    if decode_grid(cfg, p) and units <= hw.resident_ctas(size):
        return None  # a decode grid the four-CTA clusters hold at once (SWAPPED_DECODE_CLUSTERS, DECODE_96_WIDE_CLUSTERS)
    if units < 3 * hw.sm_count:
        return f"{units} tiles: too few rounds for {size}-CTA clusters"
    rounds, big_rounds = math.ceil(units / hw.sm_count), math.ceil(units / hw.resident_ctas(size))
    if big_rounds > rounds:
        return f"{size}-CTA clusters hold {hw.resident_ctas(size)} CTAs: {big_rounds} rounds instead of {rounds}"
    return None


def wide_epilogue_for_stores(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """A 64-wide TMA-epilogue subtile only for store-bound problems: memory-bound with the output
    at least a third of the traffic (the pointwise convs: N·P·Q x 64..512 outputs from K = 64..256, whose every
    candidate streamed ~1.9 TB/s against cuDNN's ~2.4). On compute-bound one-wave GEMMs it moved
    every winner by ±1% (session 6, gemm_pairs_h200_20261129_epitile.json)."""
    if not cfg.epilogue_tile_n:
        return None
    return None if store_bound(p, hw) else "a wider epilogue subtile only pays when stores bound the kernel"


def more_stores_in_flight(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """More TMA-epilogue subtile stores in flight (epilogue_store_stages) only for store-bound
    problems: elsewhere the shared memory they take is better spent on mainloop stages."""
    if not more_stores_than_cutlass(cfg):
        return None
    return None if store_bound(p, hw) else "more stores in flight only pay when stores bound the kernel"


def store_bound(p: GemmProblem, hw: Hardware) -> bool:
    compute = 2 * p.m * p.n * p.k * p.batch / (PEAK_FLOPS_PER_SM * hw.sm_count)
    out_bytes = ELEMENT_BYTES * p.m * p.n * p.batch
    in_bytes = ELEMENT_BYTES * (p.m * p.k + p.n * p.k) * p.batch
    return 2 * out_bytes >= in_bytes and (out_bytes + in_bytes) / DRAM_BYTES_PER_S > compute


def epilogue_supported(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """One source operand in 2.x and no-smem epilogues: a bias and a residual together need EVT."""
    parts = cfg.epilogue.parts
    one_source = cfg.is_2x or cfg.epilogue_schedule is EpilogueSchedule.nosmem
    if parts.bias and parts.residual and one_source:
        return "bias + residual needs the TMA (EVT) epilogue"
    return None


def family_for_arch(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """wgmma and setmaxnreg exist only on sm_90a."""
    if cfg.family in (Family.sm90_tma, Family.sm90_conv_fprop) and not hw.has_wgmma:
        return f"{hw.arch} has no wgmma"
    return None


def sm80_stages_for_k(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """More pipeline stages than K iterations only cost shared memory (and occupancy)."""
    if not cfg.is_2x:
        return None
    iters = math.ceil(p.k / cfg.split_k / cfg.tile[2])
    return None if cfg.stages <= max(3, iters) else f"{cfg.stages} stages for {iters} K iterations"


def swizzle_matches_grid(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """2.x threadblock swizzle is compiled in: keep the one that suits the grid's width (L2 reuse)."""
    if not cfg.is_2x:
        return None
    tiles_n = math.ceil(p.n / cfg.tile[1])
    want = 1 if tiles_n < 4 else 4 if tiles_n < 16 else 8
    return None if cfg.swizzle == want else f"swizzle {cfg.swizzle} for {tiles_n} tiles across N (want {want})"


def skinny_needs_clusters(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """The weight-streaming kernel sums its K slices through distributed shared memory (sm_90)."""
    if hw.max_cluster < 2:
        return f"{hw.arch} has no thread-block clusters"
    return None if cfg.split_k <= hw.max_cluster else f"{cfg.split_k} slices > a {hw.max_cluster}-CTA cluster"


def skinny_shared_memory(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """The staged activations (or the CTA's fp32 partial tile, which reuses their space) must fit,
    and hold at least one step of K."""
    need = skinny_smem(cfg)
    if need > hw.smem_per_block:
        return f"needs {need // 1024} KB smem > {hw.smem_per_block // 1024} KB"
    piece = (SKINNY_A_SMEM_KB * 1024 // (cfg.tile[0] * ELEMENT_BYTES) - SKINNY_A_PAD) // 32 * 32  # the template's kPieceK
    return None if piece >= cfg.tile[2] else f"{SKINNY_A_SMEM_KB} KB of activations hold less than one step"


def skinny_registers(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """Accumulators plus the W buffers in flight must fit what one CTA's threads can each have
    (65536 / threads, at most 255) without spilling: a spilled W buffer streams through local memory."""
    regs = skinny_register_estimate(cfg)
    cap = min(SKINNY_REGISTER_CAP, 65536 // cfg.threads)
    return None if regs <= cap else f"~{regs} registers a thread > {cap}"


def skinny_tile_fits(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """Tokens per CTA up to the problem's M (rounded up to a power of two), W rows up to N, and at
    least one whole warp step along K per slice."""
    tm, tn, tk = cfg.tile
    if tm > max(8, 1 << math.ceil(math.log2(p.m))):
        return f"{tm} tokens per CTA for M={p.m}"
    if tn > max(32, 1 << math.ceil(math.log2(p.n))):
        return f"{tn} rows per CTA for N={p.n}"
    if p.k < cfg.split_k * tk:
        return f"K={p.k} leaves a slice less than one {tk}-deep step"
    return None


def skinny_split_useful(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> str | None:
    """Split K over a cluster only while the tiles alone leave the SMs short of work."""
    if cfg.split_k == 1:
        return None
    tiles = _tiles(cfg, p)
    return f"{tiles} tiles already fill {hw.sm_count} SMs twice" if tiles >= 2 * hw.sm_count else None


RULES: list[Rule] = [
    family_for_arch, epilogue_supported, alignment_fits, odd_width_b_divides, smem_capacity, accumulator_registers,
    warps_per_block, large_warp_tiles, cooperative_tile_m, tile_fits_problem, fills_the_gpu, split_k_worthwhile,
    parallel_split_divides_k, cluster_split_in_one_wave, streamk_for_tails, streamk_runs_as_asked,
    pingpong_without_streamk, single_in_one_round, pingpong_in_one_round, cluster_useful, cluster_fits_hardware,
    four_cta_cluster_without_an_extra_round,
    wide_epilogue_for_stores, more_stores_in_flight, sm80_stages_for_k,
    swizzle_matches_grid,
    skinny_needs_clusters, skinny_shared_memory, skinny_registers, skinny_tile_fits, skinny_split_useful,
]
# The weight-streaming kernel is judged by its own rules and the two every family shares; the
# CUTLASS families' stage, warp-tile and scheduler rules mean nothing to it, nor its rules to them.
SKINNY_ONLY_RULES: set[Rule] = {skinny_needs_clusters, skinny_shared_memory, skinny_registers, skinny_tile_fits,
                                skinny_split_useful}
SHARED_RULES: set[Rule] = {alignment_fits, epilogue_supported}


def rule_applies(rule: Rule, cfg: KernelConfig) -> bool:
    if cfg.family is Family.sm90_skinny:
        return rule in SKINNY_ONLY_RULES or rule in SHARED_RULES
    return rule not in SKINNY_ONLY_RULES


SKINNY_REGISTER_CAP = 255


def skinny_smem(cfg: KernelConfig) -> int:
    """Bytes at most: the activation budget, or the partial tiles (one per warp along K) when larger;
    W stays in registers."""
    return max(SKINNY_A_SMEM_KB * 1024, cfg.k_warps * cfg.tile[0] * cfg.tile[1] * 4)


def skinny_register_estimate(cfg: KernelConfig) -> int:
    """fp32 accumulators + the register buffers of W (stages x unroll x two 16-byte rows per
    16-row tile) + one token tile's B fragments + row pointers + ~46 for indices: within 12 of ptxas on
    seven configs from 82 to 255 registers (session 14)."""
    tm, rows, wk = cfg.warp
    row_tiles, tok_tiles, unroll = rows // 16, tm // 8, wk // 32
    return 4 * row_tiles * tok_tiles + 8 * cfg.stages * unroll * row_tiles + 4 + 4 * row_tiles + 46


# What the ranking model assumes of an H200-class part (measured: 790 TFLOP/s fp16 dense through
# cuBLAS, 4.3 TB/s device copies). Only ratios between candidates matter for ranking.
PEAK_FLOPS_PER_SM = 790e12 / 132
DRAM_BYTES_PER_S = 4.3e12


# Relative MMA throughput on big tiles; 2.x mma.sync kernels (the default) reached ~55% of the
# wgmma ones in a first look on the H200, and the sm90 conv schedule is not persistent.
FAMILY_SPEED = {Family.sm90_tma: 1.0, Family.sm90_conv_fprop: 0.9}


def family_speed(cfg: KernelConfig) -> float:
    """Kiln's persistent sm90 convs are CUTLASS's persistent GEMM kernels around the conv
    mainloop: they rank like GEMMs; CUTLASS's own non-persistent conv kernel a notch lower."""
    if cfg.family is Family.sm90_conv_fprop and cfg.schedule is not Schedule.none:
        return FAMILY_SPEED[Family.sm90_tma]
    return FAMILY_SPEED.get(cfg.family, 0.55)


def estimated_cost(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> float:
    """A first-order roofline model, for ranking only (seconds, roughly).

    Compute: waves of work units × each unit's MMA time, where a tile's operand reuse
    (BOLT's compute/memory ratio, tm·tn/(tm+tn)) sets how close it runs to peak. Stream-K spreads
    the K iterations evenly over the SMs, so it pays for fractional waves, not whole ones.
    Memory: compulsory DRAM traffic at a bandwidth that scales with how many SMs have a block
    streaming (decode shapes are memory-bound, and 64 blocks on 132 SMs only pull half of it).
    """
    if cfg.family is Family.sm90_skinny:
        return skinny_cost(cfg, p, hw)
    tm, tn, _ = cfg.tile
    tiles = _launched_tiles(cfg, p)
    # padding CTAs cost more than their share of a wave: the 1x2 twins above were 15-27% slower on
    # M = 2048 shapes where both clusters make the same number of waves (llama7b.o_proj 117 against
    # 101 µs, llama7b.down 311 against 259); at least, between two such twins, rank the unpadded first
    padding = 1 + 0.25 * (tiles / _tiles(cfg, p) - 1)
    shared = cfg.tile_scheduler is TileScheduler.streamk and cfg.split_k == 1
    fixup = streamk_fixup_seconds(cfg, tiles, hw)
    if shared and cfg.family is Family.sm90_tma:
        # what CUTLASS's scheduler will actually do with it: share tiles, split K, or neither
        plan = streamk.plan(cfg, p.m, p.n, p.k, hw.sm_count)
        if plan.mode == "split_k":
            cfg = replace(cfg, split_k=plan.splits)
        shared = plan.mode == "stream_k"
        fixup = 0.0 if plan.mode == "data_parallel" else streamk_fixup_seconds(cfg, tiles, hw)
    units = tiles * cfg.split_k
    intensity = (tm * tn) / (tm + tn)
    speed = family_speed(cfg) * min(intensity, 64) / 64
    unit_seconds = 2 * tm * tn * (p.k / cfg.split_k) / (PEAK_FLOPS_PER_SM * speed)
    resident = hw.resident_ctas(launch_cluster_size(cfg))
    if shared:
        waves = max(tiles / resident, 1 / resident) * 1.06 + 0.04  # fix-up of partial tiles
        busy = resident  # stream-K keeps every SM streaming, however few the tiles
    else:
        waves = math.ceil(units / resident)
        busy = min(units, resident)
    compute = waves * unit_seconds
    traffic = ELEMENT_BYTES * (p.m * p.k + p.n * p.k + p.m * p.n) * p.batch
    in_cluster = cfg.split_k_mode == "cluster"  # partials summed through DSMEM: no memory round trip
    if cfg.split_k > 1 and not in_cluster:
        traffic += 4 * p.m * p.n * cfg.split_k * 2  # fp32 partials written and read back
    memory = traffic / (DRAM_BYTES_PER_S * min(1.0, busy / (0.8 * hw.sm_count)))
    cost = (max(compute, memory) + 0.1 * min(compute, memory)) * padding + fixup
    if cfg.split_k > 1 and not in_cluster:
        cost *= 1.05  # the reduction's extra launch or semaphore wait
    if cfg.split_k_mode == "parallel":
        cost += PARALLEL_REDUCE_SECONDS
    if in_cluster and cfg.split_k > 1:
        cost += CLUSTER_REDUCE_SECONDS
    if cfg.family in (Family.sm90_tma, Family.sm90_conv_fprop):
        full = tiles >= 1.5 * hw.sm_count
        # Measured on the H200 (bench/results/gemm_pairs_h200x2_20261129.json: each tile under
        # both epilogue schedules and both clusters): with tiles 64 or more wide, the TMA epilogue
        # ran 1.1-2.1x faster than the no-smem one on every shape, one wave or four; only narrow
        # tiles (decode, N <= 32, and the 1024x777x512 probe) keep the no-smem epilogue's edge on
        # small grids. On wide tiles 2-CTA multicast never lost by more than 2% once there were
        # tiles to pair, and won 1.2x on the long-K bert-large.ffn2. decode.m128 agrees
        # (gemm_pairs_h200_20261129_decode.json: 128x64 stream-K with the TMA epilogue 36.2-36.5 µs,
        # no-smem 37.4-38.3, same split); skinnier problems (M or N < 128, where no-smem kernels
        # won on narrow tiles) keep the earlier rule.
        wide = cfg.tile[1] >= 64 and min(p.m, p.n) >= 128
        # (a persistent kernel's bonus: its stores overlap the next tile's mainloop, which a cluster
        # split-K CTA, one tile and done, does not have)
        if cfg.epilogue_schedule is EpilogueSchedule.tma and not in_cluster:
            cost *= 0.9 if wide else (0.97 if full else 1.03)
        if cfg.epilogue_tile_n:
            cost *= WIDE_EPILOGUE_COST  # only offered where stores bound the kernel (wide_epilogue_for_stores)
        if more_stores_than_cutlass(cfg):
            cost *= MORE_STORES_COST  # likewise (more_stores_in_flight)
        multicast = decode_multicast_cost(cfg, p)
        if multicast is not None:
            cost *= multicast
        elif cfg.cluster != (1, 1) and cfg.schedule is Schedule.single:
            cost *= SINGLE_CLUSTER_COST
        elif cfg.cluster != (1, 1):
            cost *= 0.98 if (full or (wide and tiles >= hw.sm_count / 2)) else 1.02
        persistent = cfg.family is Family.sm90_tma or cfg.schedule is not Schedule.none
        if cfg.schedule is Schedule.single:
            cost *= SINGLE_CONSUMER_COST
        if persistent and sm90_pipeline_stages(cfg, hw) < SHALLOW_PIPELINE_STAGES:
            cost *= SHALLOW_PIPELINE_COST
    elif cfg.is_2x and hw.has_wgmma:
        cost *= MMA_SYNC_ON_WGMMA_HARDWARE_COST
    return cost


def decode_grid(cfg: KernelConfig, p: GemmProblem) -> bool:
    """A decode GEMM (M <= 128 tokens), seen in the kernel's frame: a swapped kernel's problem has
    its M and N exchanged, the tokens on its N."""
    return (p.n if cfg.swap_ab else p.m) <= SWAP_AB_MAX_M


def decode_multicast(cfg: KernelConfig, p: GemmProblem) -> bool:
    """A measured decode multicast (decode_multicast_cost says which and why)."""
    return decode_multicast_cost(cfg, p) is not None


def decode_multicast_cost(cfg: KernelConfig, p: GemmProblem) -> float | None:
    """The cost model's factor for a decode kernel whose cluster multicasts the operand its CTAs share, where that measured
    faster than 1x1: (1) along the weight's rows, the activation tile: a swapped kernel's narrow
    tile (N <= 32 in its frame) under 4x1, where decode.m16's 64x16 ran 3.0-3.2% faster (session 21
    run A), or cuBLAS's plain 96-wide tile under 1x4 when one tile row holds every token, where
    decode.m64's 64x96x128 ran 3.2-3.8% faster (session 22 run B; on decode.m128's two token rows
    it lost 13-16% to the stored winner, run C); (2) along the tokens, the weight tile: a swapped
    1x2 pair that covers every token, so a weight larger than the L2 (decode.m128's 90 MB) streams
    from DRAM once however the two token tiles are scheduled: 64x64x64 ran 30.34 / 29.98 µs
    against the cluster split-K winner's 32.34 / 32.06 (cuBLAS's own kernel is this cluster,
    session 22 run C). decode.m64's swapped 128x64 stayed within 0.8% of 1x1 under 4x1 and keeps
    the small-grid cluster penalty (None: not such a kernel)."""
    if not decode_grid(cfg, p):
        return None
    if cfg.swap_ab and cfg.cluster == (1, 2):
        return DECODE_WEIGHT_MULTICAST_COST if decode_weight_pair(cfg, p) else None
    if cfg.swap_ab:
        return DECODE_MULTICAST_COST if cfg.cluster == (4, 1) and cfg.tile[1] <= 32 else None
    return DECODE_MULTICAST_COST if cfg.cluster == (1, 4) and cfg.tile[1] == 96 and p.m <= cfg.tile[0] else None


def decode_weight_pair(cfg: KernelConfig, p: GemmProblem) -> bool:
    """The swapped 1x2 pair along the tokens that covers every token with its two tiles, so the
    weight streams from DRAM once (decode_multicast_cost's case 2)."""
    return decode_grid(cfg, p) and cfg.swap_ab and cfg.cluster == (1, 2) and math.ceil(p.n / cfg.tile[1]) == 2


DECODE_MULTICAST_COST = 0.98
# The weight-tile pair's gain is DRAM traffic the roofline term does not see (it counts each operand
# once, as if the L2 held the weight for the second token tile): 6% on decode.m128 (session 22 run C).
DECODE_WEIGHT_MULTICAST_COST = 0.94


# CUTLASS 2.x (mma.sync) kernels where wgmma exists: none has won a suite GEMM or conv on the H200
# since session 2, memory-bound ones included (decode.m16: every 2.x split-K candidate 21.3-22.4 µs,
# the swapped sm90 kernels 14.1-14.6), yet the roofline model, blind to the instruction rate on
# memory-bound shapes, ranked three of them into decode.m16's 16 and its winner out (session 19).
MMA_SYNC_ON_WGMMA_HARDWARE_COST = 1.3
# The single-consumer kernel on a one-round grid: 1.4-3.2% under its persistent twin on the H200
# (session 24 run A, rule pingpong_in_one_round), so it ranks just ahead of a persistent kernel the
# model otherwise costs the same.
SINGLE_CONSUMER_COST = 0.98
# ... and a multicast cluster buys it nothing outside the measured decode pairings: on square.1024
# the single 64x128x128 ran 9.47 / 9.50 µs under 1x2, 9.55 / 9.54 under 1x1 and 9.57 / 9.52 under
# 2x1, bert-base.attn_out's 128x192 13.25 / 13.09 under 1x2 and 13.28 / 13.18 under 1x1 (session 24
# run D), while square.1024's 128x64x64 ran 0.94x cuBLAS under 1x1 (run D: 9.20 / 9.07 µs against
# 8.70 / 8.54) and 0.86-0.87x under 1x2 (run A: 9.79 / 9.74 against 8.51 / 8.38). So 1x1 ranks first.
SINGLE_CLUSTER_COST = 1.02


# The weight-streaming kernel's model: Little's law on the bytes of W each SM has in flight (a
# latency of about a microsecond from HBM), mma.sync at about half of wgmma's rate, and the
# activations re-read from L2 once per tile of W rows.
DRAM_LATENCY_S = 1.0e-6
L2_BYTES_PER_S = 10e12
MMA_SYNC_SPEED = 0.5
CLUSTER_REDUCE_SECONDS = 0.5e-6


def skinny_cost(cfg: KernelConfig, p: GemmProblem, hw: Hardware) -> float:
    tm, tn, _ = cfg.tile
    threads = cfg.threads
    unroll, row_tiles = cfg.warp[2] // 32, cfg.warp[1] // 16
    ctas = _tiles(cfg, p) * cfg.split_k
    regs = max(64, skinny_register_estimate(cfg))
    staged = min(SKINNY_A_SMEM_KB * 1024, tm * 2 * (p.k // cfg.split_k + 32))
    resident = max(1, min(65536 // (threads * regs), hw.smem_per_block // max(1, staged), 2048 // threads))
    per_sm = min(resident, math.ceil(ctas / hw.sm_count))
    in_flight = per_sm * threads * (cfg.stages - 1) * unroll * 2 * row_tiles * 16  # bytes of W per SM
    bandwidth = min(DRAM_BYTES_PER_S, min(ctas, hw.sm_count) * in_flight / DRAM_LATENCY_S)
    waves = math.ceil(ctas / (hw.sm_count * resident))
    memory = ELEMENT_BYTES * p.n * p.k / bandwidth * (1 + 0.5 * (waves - ctas / (hw.sm_count * resident)) / waves)
    padded_m = math.ceil(p.m / tm) * tm
    compute = 2 * padded_m * p.n * p.k / (PEAK_FLOPS_PER_SM * min(ctas, hw.sm_count) * MMA_SYNC_SPEED)
    reread = ELEMENT_BYTES * p.m * p.k * math.ceil(p.n / tn) / L2_BYTES_PER_S
    cost = max(memory, compute, reread) + 0.1 * min(memory, compute)
    return cost + (CLUSTER_REDUCE_SECONDS if cfg.split_k > 1 else 0.0)


# Measured on the H200 (bench/results/gemm_pairs_h200_20261129_ktile.json: four one-wave shapes,
# each tile at K tile 64 and 128): 128x128 ping-pong with a 128-deep K tile fits 3 stages and ran
# 4-7% slower than with a 64-deep one (6 stages) on all four; tiles whose 128-deep K tile still
# fits 4 stages (64x128, 128x64) were within ±3% either way.
SHALLOW_PIPELINE_STAGES = 4
# Measured on the H200 (bench/results/conv2d_h200_20261130_session7_h_wide_epilogue.json, the four
# store-bound conv layers): the wide-subtile kernels won all four, 1-4% ahead of the automatic
# subtile's best in the run before (res2.1x1a 13.07 vs 13.33 µs, res2.1x1b 24.05 vs 25.17, res3.down
# 19.84 vs 20.7, res3.1x1b 16.83 vs 16.96): the store path is not what holds these layers at
# ~2 TB/s. Ranked just ahead of their automatic twins.
WIDE_EPILOGUE_COST = 0.99
# bench/results/gemm_pairs_h200_20261130_stores.json: cooperative winners 2.1-3.3% faster with four
# subtile stores in flight (space.MORE_STORES_IN_FLIGHT), which leaves them about level with the
# ping-pong 64-wide-subtile kernels that won these layers in session 8: ranked just behind the
# wide twins, so they join the search without pushing those out.
MORE_STORES_COST = 0.985
SHALLOW_PIPELINE_COST = 1.06


def sm90_pipeline_stages(cfg: KernelConfig, hw: Hardware) -> int:
    """Stages CUTLASS's automatic carve-out fits beside the epilogue's shared memory (or the fixed count)."""
    if cfg.stages:
        return cfg.stages
    return (hw.smem_per_block - _sm90_epilogue_smem(cfg) - 512) // stage_bytes(cfg)


# Parallel split-K's second kernel: its launch gap after the GEMM and a short, one-wave grid
# (decode.m16 on the H200: split kernels 16.0-17.5 µs, the unsplit one 14.3). `kiln bench fit` over
# session 6's timings is flat in it (mean Spearman 0.721 at 0 µs, 0.719 at 2, 0.715 at 4).
PARALLEL_REDUCE_SECONDS = 2e-6


# Fitted with `python -m bench.ranking_fit` on every candidate the H200 has timed (the stored
# gemm_*/fleet_* results: ~1,500 timings over the suite's 18 shapes): with this fix-up term the
# rank correlation between model and measured time went from 0.47 to 0.65 (mean Spearman per
# shape; decode.m16 0.04 → 0.62, square.1024 0.06 → 0.81, attn_out 0.43 → 0.81, no shape worse
# by more than 0.01), flat between 10 and 20 GB/s.
FIXUP_BYTES_PER_S = 15e9


def streamk_fixup_seconds(cfg: KernelConfig, tiles: int, hw: Hardware) -> float:
    """Stream-K's fix-up: the CTA that finishes a shared tile reads every other piece's fp32
    partial tile before its epilogue, one after another and latency-bound (the H200 timed
    decode.m128's 128x256 stream-K at 68 µs, 128x64 split 2 at 38: the same bytes from DRAM, 8
    pieces per tile against 2). Pieces per tile: the split count, or however many SMs share a
    tile when there are fewer tiles than SMs (rounded up, and never under two: a shared tile's
    units start and end inside it, so every shared tile has at least two pieces; session 11 timed
    res5.1x1c's 104 tiles of 128x64 forced to share 132 ways 4.5 µs slower than data-parallel, and
    square.1024's 128 tiles 2.3 µs, `gemm_pairs_h200_20261201_streamk.json`, where 132/104 pieces
    had the model call sharing a gain); on bigger grids only the tail wave's tiles are shared."""
    if cfg.tile_scheduler is not TileScheduler.streamk:
        return 0.0
    if cfg.split_k > 1:
        pieces = float(cfg.split_k)
    elif tiles < hw.sm_count:
        pieces = max(2.0, math.ceil(hw.sm_count / tiles))
    else:
        pieces = 1.0 if tiles % hw.sm_count == 0 else 2.0
    tm, tn, _ = cfg.tile
    return (pieces - 1) * tm * tn * 4 / FIXUP_BYTES_PER_S


def stage_bytes(cfg: KernelConfig) -> int:
    """One pipeline stage's shared memory: an A and a B tile of the K step."""
    tm, tn, tk = cfg.tile
    return (tm + tn) * tk * ELEMENT_BYTES


def smem_need(cfg: KernelConfig) -> int:
    return max(1, cfg.stages) * stage_bytes(cfg)


@dataclass
class PruneReport:
    total: int
    removed: dict[str, int] = field(default_factory=dict)
    examples: dict[str, str] = field(default_factory=dict)
    survivors: int = 0
    kept: list[KernelConfig] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {"total": self.total, "removed_by_rule": self.removed, "survivors": self.survivors,
                "kept": len(self.kept), "examples": self.examples}


def k_depth_matters(cfg: KernelConfig) -> bool:
    """Kernels whose K tile the GPU, not the cost model, should choose, so each depth gets its own
    group in diverse_top. Conv kernels: the K tile sets how many channels each step loads. Cluster
    split-K kernels, whose slices each run half the K loop (decode.m128: 64x128 with a 64-deep K
    tile 32.2 µs, a 128-deep one 33.6, session 17 run A). The single-consumer kernel, whose one tile
    is all the pipeline a CTA fills and drains: on square.1024 its 128x64 ran 9.20 / 9.07 µs with a
    64-deep K tile and 9.89 / 9.79 with a 128-deep one (session 24 run D), its 64x128 the other way
    round (9.12 / 9.12 at 128, 9.23 / 9.20 at 64, run A)."""
    return cfg.family is Family.sm80_conv_fprop or cfg.split_k_mode == "cluster" or cfg.schedule is Schedule.single


def k_depth_matters_for(p: GemmProblem) -> Callable[[KernelConfig], bool]:
    """k_depth_matters, plus what only the problem tells: the decode weight-tile pair
    (decode_weight_pair), which streams a weight larger than the L2 once. Its depth sets the
    bytes per pipeline stage and per multicast: the 64-deep pair ran decode.m128 2.7-3.7% faster
    than the 128-deep one under the TMA epilogue (30.34 / 29.98 µs against 31.18 / 31.15, session
    22 run C), yet a shared group let only the 128-deep one into session 22 run D's 16."""
    return lambda cfg: k_depth_matters(cfg) or decode_weight_pair(cfg, p.as_run_by(cfg))


Check = Callable[[KernelConfig], str | None]


def funnel(configs: list[KernelConfig], checks: dict[str, Check], cost: Callable[[KernelConfig], float],
           limit: int | None, by_k_depth: Callable[[KernelConfig], bool] = k_depth_matters) -> PruneReport:
    """Apply named checks in order (the first reason drops a config and is counted under its
    name), rank the survivors by `cost`, keep a spread of the best `limit`."""
    report = PruneReport(total=len(configs), removed=dict.fromkeys(checks, 0))
    survivors = []
    for cfg in configs:
        for name, check in checks.items():
            reason = check(cfg)
            if reason is not None:
                report.removed[name] += 1
                report.examples.setdefault(name, f"{cfg.name}: {reason}")
                break
        else:
            survivors.append(cfg)
    report.survivors = len(survivors)
    survivors.sort(key=lambda c: (cost(c), cluster_tie_break(c), c.name))
    report.kept = survivors if limit is None else diverse_top(survivors, limit, by_k_depth)
    return report


def cluster_tie_break(cfg: KernelConfig) -> int:
    """Between configs the model costs the same, the cluster that pairs CTAs along the problem's N
    (sharing the activations' rows) first. Over every stored H200 timing of such a tie (two configs
    that differ only in their 2-CTA cluster, `bench.ranking_fit`'s data): along N was faster in 15
    of 19 plain pairs (1x2; all on square.1024, median 3.4%) and in 5 of 7 swapped ones (2x1 in the
    swapped kernel's frame; median 1.5%, the other two within 0.5%), and bert-base.ffn1's swapped
    128x192 tile ran 1.9-2.5% faster under 2x1 (sessions 18-19). Without it the name decided, which
    put 1x2 first in either frame."""
    cm, cn = cfg.cluster[::-1] if cfg.swap_ab else cfg.cluster
    return cm - cn


def prune(configs: list[KernelConfig], p: GemmProblem, hw: Hardware, *, limit: int | None = None,
          skip: tuple[Rule, ...] = ()) -> PruneReport:
    """`skip`: rules a benchmark measures across instead of obeying (bench/gemm_pairs.py)."""
    def bind(rule: Rule) -> Check:  # a padded or swapped config runs the problem in its own frame
        return lambda cfg: rule(cfg, p.as_run_by(cfg), hw) if rule_applies(rule, cfg) else None

    checks: dict[str, Check] = {rule.__name__: bind(rule) for rule in RULES if rule not in skip}
    return funnel(configs, checks, lambda c: estimated_cost(c, p.as_run_by(c), hw), limit, k_depth_matters_for(p))


def diverse_top(ranked: list[KernelConfig], limit: int,
                by_k_depth: Callable[[KernelConfig], bool] = k_depth_matters) -> list[KernelConfig]:
    """The best `limit` distinct cubins, spread across tile shapes first.

    Survivors are grouped by (family, tile M×N, with K too where `by_k_depth` says so, operand
    order, schedule, tile scheduler, split-K mode); groups are visited in order
    of their best estimated cost, taking one member per group per round. The cost model is too
    coarse to pick between near neighbours; the GPU is not, so it gets a spread to choose from.
    Launch-time variants (raster, swizzle) share a cubin and are tried later at no compile cost.
    """
    groups: dict[tuple, list[KernelConfig]] = {}
    for cfg in ranked:
        tile = cfg.tile if by_k_depth(cfg) else cfg.tile[:2]
        key = (cfg.family, tile, cfg.swap_ab, cfg.schedule, cfg.tile_scheduler, cfg.split_k_mode,
               cfg.conv_iterator, cfg.operand_prep)
        groups.setdefault(key, []).append(cfg)
    order = list(groups.values())
    picked: list[KernelConfig] = []
    seen: set[tuple[KernelConfig, tuple[int, int]]] = set()
    depth = 0
    while len(picked) < limit and any(depth < len(g) for g in order):
        for group in order:
            if depth < len(group) and len(picked) < limit and _identity(group[depth]) not in seen:
                seen.add(_identity(group[depth]))
                picked.append(group[depth])
        depth += 1
    return picked


def _identity(cfg: KernelConfig) -> tuple[KernelConfig, tuple[int, int]]:
    """What makes two picks different: the cubin, and what its inputs go through (the same cubin
    on padded and unpadded inputs are two candidates worth timing)."""
    return cfg.compiled, cfg.operand_prep
