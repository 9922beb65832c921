"""KernelConfig → CUDA C++ source, through Jinja2 templates in templates/.

Every token a template receives is looked up in the tables below from enum members or checked
integers; nothing from a request is pasted into C++ as text. `template_tokens` exposes exactly
what was substituted so tests can check it against the whitelists.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

import templates as templates_pkg
from service.specs.epilogues import Activation, Epilogue
from service.specs.gemm import DType, Layout
from service.versions import KERNEL_GENERATOR_VERSION
from worker.kernels.config import (
    ActivationMath,
    ConvIterator,
    EpilogueSchedule,
    Family,
    KernelConfig,
    Schedule,
    TileScheduler,
)


def _templates_dir() -> Path:
    """templates/ beside the packages (source tree, editable install, the Docker images)."""
    here = Path(__file__).resolve().parents[2] / "templates"
    if (here / "gemm_sm90.cu.j2").exists():
        return here
    return Path(next(iter(templates_pkg.__path__))).resolve()


TEMPLATES_DIR = _templates_dir()
OVERLAY_DIR = TEMPLATES_DIR / "overlay"

ELEMENT = {DType.f16: "cutlass::half_t", DType.bf16: "cutlass::bfloat16_t"}
LAYOUT = {Layout.row: "cutlass::layout::RowMajor", Layout.col: "cutlass::layout::ColumnMajor"}
ACTIVATION_FN = {
    Activation.identity: "cutlass::epilogue::thread::Identity",
    Activation.relu: "cutlass::epilogue::thread::ReLu",
    # tanh form: the erf form slows epilogues several-fold
    Activation.gelu: "cutlass::epilogue::thread::GELU_taylor",
    Activation.silu: "cutlass::epilogue::thread::SiLu",
    Activation.hardswish: "cutlass::epilogue::thread::HardSwish",
    Activation.sigmoid: "cutlass::epilogue::thread::Sigmoid",
}
# activation_math "tanh" / "packed": Kiln's functors (templates/kiln_activation.cuh.j2) where they
# cost fewer instructions than CUTLASS's; ReLU, hardswish and identity are CUTLASS's either way.
KILN_ACTIVATION_FN = {
    Activation.gelu: "kiln_act::Gelu",
    Activation.silu: "kiln_act::SiLu",
    Activation.sigmoid: "kiln_act::Sigmoid",
}
SCHEDULE = {
    Schedule.cooperative: "cutlass::gemm::KernelTmaWarpSpecializedCooperative",
    Schedule.pingpong: "cutlass::gemm::KernelTmaWarpSpecializedPingpong",
    Schedule.single: "cutlass::gemm::KernelTmaWarpSpecialized",
}
PERSISTENT_SCHEDULES = (Schedule.cooperative, Schedule.pingpong)  # two consumer warpgroups, setmaxnreg
EPILOGUE_SCHEDULE = {
    (Schedule.cooperative, EpilogueSchedule.tma): "cutlass::epilogue::TmaWarpSpecializedCooperative",
    (Schedule.pingpong, EpilogueSchedule.tma): "cutlass::epilogue::TmaWarpSpecialized",
    (Schedule.single, EpilogueSchedule.tma): "cutlass::epilogue::TmaWarpSpecialized",
}
TILE_SCHEDULER = {
    TileScheduler.persistent: "cutlass::gemm::PersistentScheduler",
    # CUTLASS's stream-K scheduler, but the last reader of each shared tile's flag zeroes it, so no
    # launch needs a memset first (templates/streamk_self_clearing.cuh.j2)
    TileScheduler.streamk: "kiln::SelfClearingStreamK",
}
CUTLASS_STREAMK_SCHEDULER = "cutlass::gemm::StreamKScheduler"  # KernelConfig.streamk_memset
# The single-consumer schedule's kernel takes no tile scheduler: each CTA computes the tile its
# block index names.
SINGLE_TILE_SCHEDULER = "void"
CONV_ITERATOR = {
    ConvIterator.analytic: "kAnalytic",
    ConvIterator.optimized: "kOptimized",
    ConvIterator.fixed_channels: "kFixedChannels",
    ConvIterator.few_channels: "kFewChannels",
}
MMA_TYPE = {DType.f16: "f16", DType.bf16: "bf16"}  # mma.sync operand types (sm90_skinny)
TEMPLATE_FILE = {Family.sm80_tensorop: "gemm_sm80.cu.j2", Family.sm90_tma: "gemm_sm90.cu.j2",
                 Family.sm80_conv_fprop: "conv2d_fprop_sm80.cu.j2", Family.sm90_conv_fprop: "conv2d_fprop_sm90.cu.j2",
                 Family.sm90_skinny: "gemm_skinny_sm90.cu.j2"}
SKINNY_TILE_M = (8, 16, 32, 64, 128)  # tokens per CTA: whole mma.m16n8k16 N steps
SKINNY_TILE_N = (32, 64, 128, 256)  # rows of W per CTA, split among its warps
SKINNY_ROWS_PER_WARP = (16, 32)  # whole mma M steps
SKINNY_UNROLL = (1, 2, 4, 8)  # 32-wide K chunks a warp copies and multiplies per step
SKINNY_WARPS = (2, 4, 8, 16, 32)
SKINNY_K_WARPS = (1, 2, 4, 8)  # warps along K per row group (tile K / warp K)
SKINNY_STAGES = (2, 3, 4)  # register buffers of W per lane (steps in flight + 1)
SKINNY_A_SMEM_KB = 40  # activations staged per CTA (1.2K of K for 16 tokens); W never enters shared memory
SKINNY_A_PAD = 32  # halves after a staged row at most: rows 64 bytes apart modulo 128 for 16-byte lane reads


class UnsupportedConfig(ValueError):
    """The template cannot express this combination (the enumerator should not have produced it)."""


@lru_cache
def _env() -> Environment:
    return Environment(loader=FileSystemLoader(str(TEMPLATES_DIR)), undefined=StrictUndefined,
                       trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


# wgmma takes any N that is a multiple of 8 (8..256), but CuTe's selector (ss_op_selector) offers
# only these unless CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED is defined; without it an 88-wide tile
# becomes eleven 8-wide atoms and CuTe's TMA partition fails its divisibility checks.
WGMMA_STANDARD_N = (256, 192, 128, 96, 64, 32, 16, 8)


def needs_extended_wgmma(tile_n: int) -> bool:
    """Whether the tile's N is a wgmma width CuTe selects only with its extended shapes, so that the
    define goes into exactly those sources (every other cubin's source, and cache key, stays)."""
    widest_standard = next((n for n in WGMMA_STANDARD_N if tile_n % n == 0), 0)
    widest = next((n for n in range(256, 7, -8) if tile_n % n == 0), 0)
    return widest > widest_standard


# One 128-byte-swizzled shared-memory atom of fp16 B: 8 rows of 64 K elements. An odd-width tile's
# view of B (one_box_b_mainloop.cuh.j2) is built from whole atoms, so the problem's N and K must be
# whole multiples of these (prune.odd_width_b_divides; gpu_bench.tail_cuts keeps its tail test so).
ODD_WIDTH_GROUP_ROWS = 8
ODD_WIDTH_K_ATOM = 64


def odd_group_width(cfg: KernelConfig) -> bool:
    """An sm90 GEMM tile whose N is an odd number (three or more) of 8-row groups: the tiles
    k_first_b_atoms lays out K first and one_box_b_mainloop.cuh.j2 loads through its view of B."""
    groups = int(cfg.tile[1]) // ODD_WIDTH_GROUP_ROWS
    return cfg.family is Family.sm90_tma and groups % 2 == 1 and groups > 1


def k_first_b_atoms(cfg: KernelConfig) -> bool:
    """Whether B's shared-memory tile is laid out with its 64-wide K atoms next to each other (within
    each 8-row group) instead of CUTLASS's rows-first order. CUTLASS stacks B's 128-byte-swizzled
    8x64 atoms along N first, so with an odd number of 8-row groups (N = 88, 104, ...) the odd mode
    sits on the swizzle's top bit and CuTe's TMA and wgmma partitions fail their divisibility
    checks; K first moves it above the swizzle. Needs two or more K atoms (tile K 128 and up): an
    odd-width tile with K 64 cannot be laid out at all. One group (N = 8) has no such mode. Such a
    tile's B then arrives in one TMA box per stage through a hierarchical view of B
    (one_box_b_mainloop.cuh.j2), which needs N % 8 == 0 and K % 64 == 0 (prune.odd_width_b_divides)
    and no B multicast."""
    if not odd_group_width(cfg):
        return False
    if int(cfg.tile[2]) % 128:
        raise UnsupportedConfig("a tile N that is an odd multiple of 8 needs a tile K of 128 or more")
    if cfg.phase_clock or cfg.l2_prefetch:
        raise UnsupportedConfig("an odd-width tile's K-first mainloop does not combine with the phase clock or L2 prefetch")
    if cfg.cluster[0] > 1:
        raise UnsupportedConfig("an odd-width tile's B is loaded in one box per stage, which a cluster along M "
                                "(B multicast) cannot split evenly: use a cluster of 1 along M")
    return True


def waits_on_prior_grid(cfg: KernelConfig) -> bool:
    """CUTLASS's persistent sm90 kernels (every sm90 GEMM, Kiln's persistent convs) built with grid
    dependency control: the producer waits on the stream's previous grid (griddepcontrol.wait)
    before its first global access, and the last tile hints the next kernel to launch. Such a
    kernel may be launched with programmatic stream serialization, so its launch and prologue
    overlap the previous kernel's tail. CUTLASS's own sm90 conv kernel and the 2.x kernels have no
    such wait: they must never be launched that way. Nor stream-K kernels: CUTLASS 4.2's stream-K
    scheduler does not compile with grid dependency control (its const `is_last_tile`, which only
    that path calls, binds a member to a non-const reference)."""
    if cfg.tile_scheduler is TileScheduler.streamk:
        return False
    return cfg.family is Family.sm90_tma or (cfg.family is Family.sm90_conv_fprop and cfg.schedule is not Schedule.none)


# CUTLASS's persistent scheduler sizes its grid from hw_info.max_active_clusters when it has one;
# without it, it assumes 18-SM GPCs (tile_scheduler_params.h, get_max_cta_occupancy), which for
# 132 SMs allows 66 two-CTA clusters and 29 of four, where the H200 holds 30 of four (session 16,
# bench/results/cluster_occupancy_h200_20261202_session16_c.json): the GPU's own count, not a guess.
OCCUPANCY_QUERY_MIN_CLUSTER = 3


def queries_cluster_occupancy(cfg: KernelConfig) -> bool:
    """Kernels whose builder takes the driver's count of co-resident clusters (cuOccupancyMaxActiveClusters,
    asked by the launcher before it builds the Params): sm90 GEMMs with clusters of more than two
    CTAs. Two-CTA kernels keep CUTLASS's estimate, which is exact for them (66 clusters on 132 SMs),
    so their sources and cubins stay as measured."""
    return cfg.family is Family.sm90_tma and cfg.cluster[0] * cfg.cluster[1] >= OCCUPANCY_QUERY_MIN_CLUSTER


def activation_of(epilogue: Epilogue) -> Activation:
    parts = epilogue.parts
    return parts.post_activation if parts.residual else parts.activation


def activation_fn(cfg: KernelConfig, activation: Activation) -> str:
    """The activation functor's C++ template name under the config's activation math."""
    if cfg.activation_math is ActivationMath.cutlass:
        return ACTIVATION_FN[activation]
    return KILN_ACTIVATION_FN.get(activation, ACTIVATION_FN[activation])


def activation_element(cfg: KernelConfig) -> str:
    """The type the TMA epilogue's activation node computes in: the fp16 output itself where
    "packed" pairs the activation (the functor then sees half pairs), FP32 otherwise."""
    return "Element" if cfg.activation_math is ActivationMath.packed and cfg.pairs_activation else "float"


def template_tokens(cfg: KernelConfig) -> dict[str, Any]:
    parts = cfg.epilogue.parts
    tokens: dict[str, Any] = {
        "generator_version": KERNEL_GENERATOR_VERSION,
        "name": cfg.variant_name,
        "element": ELEMENT[cfg.dtype],
        "layout_a": LAYOUT[cfg.layout_a],
        "layout_b": LAYOUT[cfg.layout_b],
        "layout_a_is_row": cfg.layout_a is Layout.row,
        "layout_b_is_row": cfg.layout_b is Layout.row,
        "activation": activation_of(cfg.epilogue).value,
        "activation_fn": activation_fn(cfg, activation_of(cfg.epilogue)),
        "activation_element": activation_element(cfg),
        "kiln_activation": cfg.activation_math is not ActivationMath.cutlass and cfg.has_kiln_activation,
        "bias": parts.bias,
        "residual": parts.residual,
        "bias_per_row": bool(cfg.swap_ab),  # swapped operands: the bias runs along the kernel's rows
        "tile": [int(v) for v in cfg.tile],
        "align_a": int(cfg.alignment[0]),
        "align_b": int(cfg.alignment[1]),
        "align_c": int(cfg.alignment[2]),
        "stages": int(cfg.stages),
        "programmatic_dependent_launch": waits_on_prior_grid(cfg),
        "epilogue_store_stages": epilogue_store_stages(cfg),
        "warp_stores": warp_stores(cfg),
        "self_clearing": self_clearing_workspace(cfg),
        "l2_prefetch": l2_prefetch(cfg),
        "lean_consumer": lean_consumer(cfg),
        "wg_split_n": wg_split_n(cfg),
        "narrow_epilogue_atom": narrow_epilogue_atom(cfg),
    }
    if cfg.streamk_memset and (cfg.family is not Family.sm90_tma or cfg.tile_scheduler is not TileScheduler.streamk):
        raise UnsupportedConfig("streamk_memset picks CUTLASS's stream-K scheduler: sm90 stream-K GEMMs only")
    if cfg.is_2x:
        if parts.bias and parts.residual:
            raise UnsupportedConfig(f"{cfg.family.value} cannot fuse a bias and a residual (one source operand)")
        tokens.update(warp=[int(v) for v in cfg.warp], instruction=[int(v) for v in cfg.instruction],
                      swizzle=int(cfg.swizzle), bias_as_source=parts.bias)
        if cfg.split_k_mode == "parallel":
            raise UnsupportedConfig("parallel split-K is generated for sm90 kernels only")
        if cfg.family is Family.sm80_conv_fprop:
            if cfg.conv_iterator not in CONV_ITERATOR:
                raise UnsupportedConfig("a conv kernel needs an iterator algorithm")
            tokens["iterator_algorithm"] = CONV_ITERATOR[cfg.conv_iterator]
    elif cfg.family is Family.sm90_skinny:
        tokens.update(skinny_tokens(cfg))
    elif cfg.family is Family.sm90_conv_fprop:
        persistent = cfg.schedule is not Schedule.none
        tokens.update(cluster=[int(v) for v in cfg.cluster], persistent=persistent, schedule=cfg.schedule.value,
                      epilogue_tile=epilogue_tile(cfg),
                      # CUTLASS's own conv kernel: one consumer warpgroup, so ping-pong's epilogue schedule
                      epilogue_schedule_type=EPILOGUE_SCHEDULE[(Schedule.pingpong, EpilogueSchedule.tma)])
        if persistent:
            if cfg.schedule not in PERSISTENT_SCHEDULES or cfg.epilogue_schedule is not EpilogueSchedule.tma:
                raise UnsupportedConfig("persistent sm90 convs run the cooperative or ping-pong schedule, TMA epilogue")
            tokens.update(schedule_type=SCHEDULE[cfg.schedule],
                          epilogue_schedule_type=EPILOGUE_SCHEDULE[(cfg.schedule, cfg.epilogue_schedule)])
    else:
        if cfg.epilogue_schedule is EpilogueSchedule.nosmem and parts.bias and parts.residual:
            raise UnsupportedConfig("the no-smem epilogue cannot fuse a bias and a residual")
        tokens.update(
            cluster=[int(v) for v in cfg.cluster],
            schedule=cfg.schedule.value, schedule_type=SCHEDULE[cfg.schedule],
            epilogue_schedule=cfg.epilogue_schedule.value,
            epilogue_schedule_type=EPILOGUE_SCHEDULE.get((cfg.schedule, cfg.epilogue_schedule), ""),
            tile_scheduler=cfg.tile_scheduler.value, tile_scheduler_type=tile_scheduler_type(cfg),
            swap_ab=bool(cfg.swap_ab), parallel_split=cfg.split_k_mode == "parallel",
            cluster_split=cfg.split_k_mode == "cluster",
            epilogue_tile=epilogue_tile(cfg), max_active_clusters=queries_cluster_occupancy(cfg),
            phase_clock=bool(cfg.phase_clock), prefetch_a=bool(cfg.swap_ab),
            extended_wgmma=needs_extended_wgmma(int(cfg.tile[1])), k_first_b=k_first_b_atoms(cfg),
            split_k_interleave=bool(cfg.split_k_interleave),
        )
        if cfg.split_k_mode == "cluster":
            check_cluster_split(cfg)
        elif cfg.split_k_interleave:
            raise UnsupportedConfig("interleaved K slices are a cluster split-K choice")
        elif cfg.schedule is Schedule.single:
            check_single(cfg)
        elif cfg.tile_scheduler not in TILE_SCHEDULER:
            raise UnsupportedConfig("sm90 GEMMs run the persistent or stream-K tile scheduler")
        if cfg.split_k_mode == "parallel" and (cfg.epilogue_schedule is not EpilogueSchedule.nosmem
                                               or cfg.tile_scheduler is not TileScheduler.persistent):
            raise UnsupportedConfig("parallel split-K is generated with the no-smem epilogue and the persistent scheduler")
        if cfg.swap_ab and (cfg.layout_a, cfg.layout_b) != (Layout.row, Layout.col):
            raise UnsupportedConfig("swapped operands are generated for row-major A and column-major B only")
    return tokens


L2_PREFETCH_DISTANCES = (4, 8, 16, 32)


def l2_prefetch(cfg: KernelConfig) -> int:
    """k-tiles ahead that the producer prefetches the weight into L2 (templates/l2_prefetch_mainloop.cuh.j2),
    0 for CUTLASS's own load. The phase clock wraps the same load(), so the two do not combine."""
    n = int(cfg.l2_prefetch)
    if n and (n not in L2_PREFETCH_DISTANCES or cfg.phase_clock or cfg.family is not Family.sm90_tma):
        raise UnsupportedConfig(f"l2_prefetch is one of {L2_PREFETCH_DISTANCES} on sm90 TMA GEMMs without the phase clock")
    return n


def lean_consumer(cfg: KernelConfig) -> bool:
    """Whether the consumer's k-tile loop is unrolled over the stages (templates/lean_consumer_mainloop.cuh.j2).
    It replaces CUTLASS's mma(); the phase clock, the L2 prefetch and the odd-width K-first mainloop
    each wrap CUTLASS's collective their own way, so it stands alone."""
    if not cfg.lean_consumer:
        return False
    if cfg.family is not Family.sm90_tma or cfg.phase_clock or cfg.l2_prefetch or odd_group_width(cfg):
        raise UnsupportedConfig("the lean consumer loop is built for sm90 TMA GEMMs without the phase clock, "
                                "L2 prefetch or an odd-width tile")
    return True


# Split-N tile widths: each warpgroup's half is a wgmma width and a whole number of the epilogue
# subtile's shared-memory swizzle atoms (64 columns, or 32 for 192: narrow_epilogue_atom).
SPLIT_N_TILE_N = (128, 192, 256)


def narrow_epilogue_atom(cfg: KernelConfig) -> bool:
    """Whether the split-N epilogue lays its subtile out in 32-column atoms: a 192-wide tile's
    96-column halves are not whole 64-column (128-byte swizzle) atoms, CUTLASS's choice for the
    subtile, and CuTe's stride divisibility check refuses the partition."""
    return wg_split_n(cfg) and (int(cfg.tile[1]) // 2) % 64 != 0


def wg_split_n(cfg: KernelConfig) -> bool:
    """Whether the cooperative kernel's two consumer warpgroups split the tile along N (each owns
    every row over half the columns) instead of along M. The tile's M is then any multiple of 64
    from 128 (CUTLASS's cooperative kernel asks for 128 or more), its N 128, 192 or 256. The
    TMA epilogue's subtile must then be one 64-row atom by the tile's whole N (epilogue_subtile), so
    that each subtile holds the same accumulators of both warpgroups; the per-warp stores assume
    warpgroups stacked along M, and the other mainloop wrappers take CUTLASS's TiledMma."""
    if not cfg.wg_split_n:
        return False
    if (cfg.family is not Family.sm90_tma or cfg.schedule is not Schedule.cooperative
            or cfg.tile_scheduler is not TileScheduler.persistent or cfg.epilogue_schedule is not EpilogueSchedule.tma):
        raise UnsupportedConfig("warpgroups split along N are built for cooperative sm90 GEMMs with the persistent "
                                "scheduler and the TMA epilogue")
    if int(cfg.tile[0]) % 64 or not 128 <= int(cfg.tile[0]) <= 512 or int(cfg.tile[1]) not in SPLIT_N_TILE_N:
        raise UnsupportedConfig("warpgroups split along N need a tile M that is a multiple of 64 from 128 to 512 "
                                f"and a tile N in {SPLIT_N_TILE_N}")
    if (cfg.epilogue_tile_n or cfg.warp_stores or cfg.split_k_mode != "none" or cfg.phase_clock or cfg.l2_prefetch
            or cfg.lean_consumer or cfg.swap_ab):
        raise UnsupportedConfig("warpgroups split along N set their own epilogue subtile and mainloop: no "
                                "epilogue_tile_n, per-warp stores, split-K, phase clock, L2 prefetch, lean consumer "
                                "or swapped operands (their subtiles are laid out for row-major D)")
    return True


def tile_scheduler_type(cfg: KernelConfig) -> str:
    if cfg.schedule is Schedule.single:
        return SINGLE_TILE_SCHEDULER
    if cfg.streamk_memset:
        return CUTLASS_STREAMK_SCHEDULER
    return TILE_SCHEDULER.get(cfg.tile_scheduler, "")


def self_clearing_workspace(cfg: KernelConfig) -> bool:
    """Whether the kernel leaves its workspace's barriers zeroed (Kiln's stream-K scheduler), so a
    workspace zeroed once serves every launch of one shape with no memset before each."""
    return cfg.family is Family.sm90_tma and cfg.tile_scheduler is TileScheduler.streamk and not cfg.streamk_memset


def check_single(cfg: KernelConfig) -> None:
    """The single-consumer kernel has no tile scheduler (so no stream-K and no parallel split-K's
    persistent partials) and CUTLASS gives it no split of K over a cluster."""
    if cfg.tile_scheduler is not TileScheduler.none or cfg.split_k_mode != "none":
        raise UnsupportedConfig("the single-consumer schedule runs one tile per CTA: no tile scheduler, no split-K")


def check_cluster_split(cfg: KernelConfig) -> None:
    """Cluster split-K (templates/cluster_splitk_kernel.cuh.j2) is built on CUTLASS's no-smem or TMA
    epilogue (CUTLASS's own, not the per-warp-store one), one tile per cluster (no tile scheduler)
    and a 1x1 multicast cluster: the launch cluster holds the tile's K slices, not neighbouring tiles."""
    if (cfg.epilogue_schedule not in (EpilogueSchedule.nosmem, EpilogueSchedule.tma) or cfg.warp_stores
            or cfg.tile_scheduler is not TileScheduler.none or cfg.cluster != (1, 1) or cfg.schedule not in PERSISTENT_SCHEDULES):
        raise UnsupportedConfig("cluster split-K is generated with CUTLASS's no-smem or TMA epilogue, no tile "
                                "scheduler, a 1x1 multicast cluster and the cooperative or ping-pong mainloop")


def skinny_tokens(cfg: KernelConfig) -> dict[str, Any]:
    """The weight-streaming kernel's shape: tokens and W rows per CTA, rows per warp, warps along K
    (tile K / warp K), each warp's unroll and register buffers, all from the small tables above; A row-major, W (B) column-major, rows
    16-byte aligned."""
    tm, tn, tk = cfg.tile
    wm, rows, wk = cfg.warp
    k_warps = tk // wk if wk and tk % wk == 0 else 0
    warps = tn // rows * k_warps if rows and tn % rows == 0 else 0
    unroll = wk // 32 if wk % 32 == 0 else 0
    if (tm not in SKINNY_TILE_M or tn not in SKINNY_TILE_N or rows not in SKINNY_ROWS_PER_WARP or wm != tm
            or k_warps not in SKINNY_K_WARPS or unroll not in SKINNY_UNROLL or warps not in SKINNY_WARPS
            or cfg.stages not in SKINNY_STAGES):
        raise UnsupportedConfig(f"no weight-streaming kernel with tile {cfg.tile} and warp step {cfg.warp}")
    if (cfg.layout_a, cfg.layout_b) != (Layout.row, Layout.col) or cfg.alignment[:2] != (8, 8):
        raise UnsupportedConfig("the weight-streaming kernel reads row-major A and column-major B in 16-byte rows")
    parts = cfg.epilogue.parts
    return {"tile": [int(tm), int(tn)], "warps": int(warps), "rows_per_warp": int(rows), "unroll": int(unroll),
            "k_warps": int(k_warps),
            "stages": int(cfg.stages),
            "a_smem_kb": SKINNY_A_SMEM_KB, "a_pad": SKINNY_A_PAD, "mma_type": MMA_TYPE[cfg.dtype],
            "act_fn": activation_fn(cfg, parts.activation), "post_act_fn": activation_fn(cfg, parts.post_activation)}


EPILOGUE_TILE_AUTO = "cutlass::epilogue::collective::EpilogueTileAuto"


def epilogue_subtile(cfg: KernelConfig) -> tuple[int, int]:
    """The TMA epilogue's subtile, rows by columns, as the kernel gets it: CUTLASS's automatic one
    (128 rows for cooperative kernels, 64 for the others, 32 columns for fp16), `epilogue_tile_n`
    columns where set, and one 64-row atom by the whole tile N where the warpgroups split along N
    (wg_split_n). prune sizes the epilogue's shared memory from it."""
    if cfg.wg_split_n:
        return 64, int(cfg.tile[1])
    rows = min(128 if cfg.schedule is Schedule.cooperative else 64, int(cfg.tile[0]))
    return rows, min(int(cfg.epilogue_tile_n or 32), int(cfg.tile[1]))


def epilogue_tile(cfg: KernelConfig) -> str:
    """CUTLASS's automatic TMA-epilogue subtile, or one `epilogue_tile_n` wide: half as many smem
    round trips and TMA stores per tile, for problems whose output is most of their traffic; or the
    split-N kernel's (epilogue_subtile)."""
    if not wg_split_n(cfg):
        if not cfg.epilogue_tile_n:
            return EPILOGUE_TILE_AUTO
        if cfg.epilogue_schedule is not EpilogueSchedule.tma or cfg.tile[1] % cfg.epilogue_tile_n:
            raise UnsupportedConfig("an epilogue subtile is a TMA-epilogue choice that must divide the tile's N")
    rows, cols = epilogue_subtile(cfg)
    return f"Shape<_{rows}, _{cols}>"


def epilogue_store_stages(cfg: KernelConfig) -> int:
    """TMA-epilogue subtile stores in flight, 0 for CUTLASS's own choice (min(subtiles, 2)). One gives
    the mainloop a subtile's shared memory back for its stages, at a wait per subtile."""
    stages = int(cfg.epilogue_store_stages)
    if not stages:
        return 0
    tma = cfg.family is Family.sm90_conv_fprop or cfg.epilogue_schedule is EpilogueSchedule.tma
    if cfg.is_2x or not tma or not 1 <= stages <= 8:
        raise UnsupportedConfig("epilogue store stages are 1..8 TMA-epilogue subtile stores")
    return stages


def warp_stores_supported(cfg: KernelConfig) -> bool:
    """What the per-warp-store collective (templates/warp_store_epilogue.cuh.j2) is built for: sm90
    GEMMs with the TMA epilogue, no residual (the subtile buffer is not shared with C), no split-K
    partials; row-major D, or column-major D (swapped) in 16-bit elements; every schedule (the
    single-consumer kernel's one warpgroup stores as one ping-pong warpgroup does)."""
    return (cfg.family is Family.sm90_tma and cfg.epilogue_schedule is EpilogueSchedule.tma
            and not cfg.epilogue.parts.residual and cfg.split_k_mode == "none")


def warp_stores(cfg: KernelConfig) -> bool:
    """Per-warp TMA stores: each consumer warp stores the 16 rows of every subtile it holds, with no
    CTA-wide barrier per subtile."""
    if not cfg.warp_stores:
        return False
    if not warp_stores_supported(cfg):
        raise UnsupportedConfig("per-warp stores are built for sm90 GEMMs with the TMA epilogue, no residual "
                                "and no split-K")
    return True


def render(cfg: KernelConfig) -> str:
    return _env().get_template(TEMPLATE_FILE[cfg.family]).render(**template_tokens(cfg.compiled))


def tma_operands(cfg: KernelConfig) -> list[str]:
    """Which pointer each TMA descriptor that build_params describes belongs to, in order."""
    if cfg.family is Family.sm90_conv_fprop:  # A, C and D through im2col descriptors, B tiled
        return ["A", "B", *(["C"] if cfg.epilogue.parts.residual else []), "D"]
    if cfg.family is not Family.sm90_tma:
        return []
    ops = ["B", "A"] if cfg.swap_ab else ["A", "B"]  # the kernel's A is the caller's B when swapped
    if cfg.epilogue_schedule is EpilogueSchedule.tma:
        if cfg.epilogue.parts.residual:
            ops.append("C")
        ops.append("D")
    return ops
