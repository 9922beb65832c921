"""KernelConfig: one point of the search space, hashable, serializable, with a name that is its identity.

Fields split in two: what is compiled into the cubin (family, tiles, stages, schedules, alignment,
epilogue) and what is a launch-time argument of the same cubin (raster order, swizzle, split-K
slices). The compile cache keys on the first part only, so trying five rasters costs one compile.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from enum import StrEnum
from typing import Any

from service.specs.epilogues import Activation, Epilogue
from service.specs.gemm import DType, Layout


class Family(StrEnum):
    sm80_tensorop = "sm80_tensorop"  # CUTLASS 2.x multistage mma.sync, runs on sm_80..sm_90
    sm90_tma = "sm90_tma"  # CUTLASS 3.x TMA + wgmma warp-specialized, sm_90a only
    sm80_conv_fprop = "sm80_conv_fprop"  # CUTLASS 2.x implicit-GEMM Conv2d fprop, NHWC, sm_80..sm_90
    sm90_conv_fprop = "sm90_conv_fprop"  # CUTLASS 3.x TMA-im2col + wgmma Conv2d fprop, sm_90a (experimental)
    sm90_skinny = "sm90_skinny"  # Kiln's weight-streaming mma.sync GEMM for decode (M <= 128), K split over a cluster


class ConvIterator(StrEnum):
    """How the implicit-GEMM kernel walks the activation (CUTLASS IteratorAlgorithm)."""

    none = "none"
    analytic = "analytic"  # any channel count the alignment divides; recomputes offsets
    optimized = "optimized"  # precomputed offsets: channels a multiple of the access width
    fixed_channels = "fixed_channels"  # C equals the access width (small, padded stem convs)
    few_channels = "few_channels"  # small C, a multiple of the access width


class Schedule(StrEnum):
    none = "none"
    cooperative = "cooperative"  # persistent: two consumer warpgroups share each tile's rows
    pingpong = "pingpong"  # persistent: two consumer warpgroups take turns, a tile each
    # CUTLASS's non-persistent KernelTmaWarpSpecialized: one consumer warpgroup, one tile per CTA,
    # the grid the tiles themselves (tile_scheduler none). For grids of one wave or less every
    # persistent CTA gets one tile anyway, and this kernel drops the scheduler's loop, ping-pong's
    # order barrier and the idle second consumer warpgroup.
    single = "single"


class EpilogueSchedule(StrEnum):
    none = "none"
    tma = "tma"  # stage D through shared memory and store with TMA (needs 16 B aligned rows)
    nosmem = "nosmem"  # each thread stores its accumulators directly: any N, no smem for C/D


class TileScheduler(StrEnum):
    none = "none"
    persistent = "persistent"
    streamk = "streamk"


class Raster(StrEnum):
    heuristic = "heuristic"
    along_m = "along_m"
    along_n = "along_n"


class ActivationMath(StrEnum):
    """How an epilogue's GELU, SiLU or sigmoid is computed (templates/kiln_activation.cuh.j2). Session
    18 run A (bench/results/gemm_pairs_h200_20261203_session18_a_activation.json) made "packed" the
    default: llama7b.up's SiLU 266.5 -> 259.2 us (its kernel without an epilogue: 258.5), bert-base.ffn1's
    bias + GELU 34.72 -> 34.34 us. ReLU, hardswish and identity are CUTLASS's under every value."""

    cutlass = "cutlass"  # CUTLASS's functors: SiLU/sigmoid as 1/(1+exp(-x)) with an IEEE reciprocal
    tanh = "tanh"  # Kiln's: SiLU, sigmoid and GELU through one tanh.approx each, in FP32
    packed = "packed"  # as tanh, and GELU on fp16 pairs (f16x2) in the TMA epilogue's activation node


KILN_ACTIVATIONS = frozenset({Activation.gelu, Activation.silu, Activation.sigmoid})  # what activation_math changes
# What "packed" computes on fp16 pairs: GELU's FP32 form is five FP32 operations and a tanh, its
# pair form two and a half per element plus the pair shuffles; SiLU's and sigmoid's FP32 forms are
# two operations and ran 0.3% faster than their pairs (session 18 run A: the f16x2 tanh issues as
# two MUFU operations on the H200, so pairs save only the FP32 work).
PAIRED_ACTIVATIONS = frozenset({Activation.gelu})


class Decomposition(StrEnum):
    """How a stream-K kernel divides the work (a launch argument). `heuristic` is CUTLASS's own
    choice, which runs a problem data-parallel when its last wave is at least half full;
    `streamk` always shares tiles' K iterations out over the SMs (worker/kernels/streamk.py)."""

    heuristic = "heuristic"
    streamk = "streamk"


# How far each L2 request of an sm90 kernel's tiled TMA loads is widened (bytes; the descriptor's
# CUtensorMapL2promotion, encoded on the host per launch). CUTLASS's own encoder asks for 128.
DEFAULT_L2_PROMOTION = 128

Triple = tuple[int, int, int]
Pair = tuple[int, int]


@dataclass(frozen=True, order=True)
class KernelConfig:
    family: Family
    dtype: DType
    layout_a: Layout
    layout_b: Layout
    epilogue: Epilogue
    tile: Triple
    alignment: Triple = (8, 8, 8)  # elements, A/B/C-D
    # sm80_tensorop; sm90_skinny: (tile M, W rows per warp, K per warp step): the CTA's warps
    # split its tile N (row groups) and its K step (tile K / warp K warps per group), each over all
    # its tokens
    warp: Triple = (0, 0, 0)
    instruction: Triple = (16, 8, 16)
    stages: int = 0  # 0: let CUTLASS carve out the most stages that fit (sm90)
    swizzle: int = 1  # 2.x threadblock swizzle (compiled in)
    # none | serial (2.x: slices meet in a semaphore) | parallel (sm90: partials + a reduction kernel)
    # | cluster (sm90: the slices are one cluster's CTAs, summed through distributed shared memory)
    split_k_mode: str = "none"
    # sm90_tma
    cluster: Pair = (1, 1)
    schedule: Schedule = Schedule.none
    epilogue_schedule: EpilogueSchedule = EpilogueSchedule.none
    tile_scheduler: TileScheduler = TileScheduler.none
    swap_ab: bool = False  # compute D^T = B·A^T: a skinny M rides on wgmma's N (tile is in that frame)
    epilogue_tile_n: int = 0  # TMA epilogue subtile width (0: CUTLASS's EpilogueTileAuto, 32 for fp16)
    epilogue_store_stages: int = 0  # TMA epilogue subtile stores in flight (0: CUTLASS's min(subtiles, 2))
    warp_stores: bool = False  # TMA epilogue: each warp stores its own rows, no CTA barrier per subtile
    activation_math: ActivationMath = ActivationMath.packed  # epilogue activation functors (compiled in)
    # sm90 GEMMs: stamp each CTA's phases with %globaltimer (templates/phase_clock.cuh.j2,
    # bench/phase_clock.py). A measuring instrument, never searched.
    phase_clock: bool = False
    # sm90 GEMMs: the producer also prefetches the weight operand's tiles into L2 this many k-tiles
    # ahead of its loads (templates/l2_prefetch_mainloop.cuh.j2); 0 is CUTLASS's own load.
    l2_prefetch: int = 0
    # sm90 stream-K: CUTLASS's own scheduler, whose barrier flags the launcher zeroes before every
    # launch, instead of Kiln's, which leaves them zeroed (templates/streamk_self_clearing.cuh.j2).
    # The before-and-after twin and a fallback; never searched.
    streamk_memset: bool = False
    # sm90 cluster split-K: slice r of S takes K tiles r, r+S, r+2S... instead of the r-th contiguous
    # run, so a cluster's slices read neighbouring K tiles of the same rows together. Measured slower
    # than contiguous slices (session 37 run C, an H100: +4-8% on decode.m128), so never searched.
    split_k_interleave: bool = False
    # sm90 GEMMs: the consumer's k-tile loop unrolled over the pipeline's stages, so each copy of the
    # body has its stage as a constant (templates/lean_consumer_mainloop.cuh.j2): the test of whether
    # CUTLASS's per-k-block bookkeeping is the compute-bound winners' gap to nvjet. Measured to tie
    # (session 41 run A, an H100: within 0.3% on four winners, 0.5-0.8% slower on two), so never searched.
    lean_consumer: bool = False
    # sm90 cooperative GEMMs: the two consumer warpgroups split the tile along N instead of M, each
    # computing all of the tile's rows (wgmma's 64-row atoms stacked M/64 deep) over half its columns.
    # That frees the tile's M from CUTLASS's two 64- or 128-row halves: 192 and 320 rows, the tiles
    # nvjet's "coopB" kernels run (192x128, 192x192, 320x128), with D row-major as the caller wants
    # it (the swapped 128x192 tile reaches 192 rows only with column-major stores).
    wg_split_n: bool = False
    # sm80_conv_fprop
    conv_iterator: ConvIterator = ConvIterator.none
    # launch-time (not compiled in)
    raster: Raster = Raster.heuristic
    max_swizzle: int = 1
    split_k: int = 1
    decomposition: Decomposition = Decomposition.heuristic  # stream-K kernels only
    pad_c: int = 0  # conv: the client pads channels to a multiple of this (0: no padding)
    s2d: int = 0  # conv: the client folds the input space-to-depth by this block first (0: no)
    pad_kn: int = 0  # GEMM: the client zero-pads K and N to a multiple of this (0: no padding)
    # sm90 tiled TMA descriptors: bytes each L2 request is widened to (0, 64, 128, 256; the host
    # encodes them, so no recompile)
    l2_promotion: int = DEFAULT_L2_PROMOTION

    # what a launch sets (builder arguments, the host's TMA encodes, the client's operand prep): one
    # cubin serves every value of these
    RUNTIME_FIELDS = ("raster", "max_swizzle", "split_k", "decomposition", "pad_c", "pad_kn", "s2d", "l2_promotion")

    @property
    def compiled(self) -> KernelConfig:
        """The same kernel with launch-time fields at their defaults: the compile-cache identity."""
        defaults: dict[str, Any] = {f.name: f.default for f in fields(self) if f.name in self.RUNTIME_FIELDS}
        return replace(self, **defaults)

    @property
    def padding(self) -> int:
        """What the launch contract asks the client to pad to (conv channels or GEMM K/N), 0 if nothing."""
        return self.pad_c or self.pad_kn

    @property
    def operand_prep(self) -> tuple[int, int]:
        """What the client does to the operands before a launch: (padding, space-to-depth block).
        Candidates with the same value share their inputs in a measurement."""
        return self.padding, self.s2d

    @property
    def variant_name(self) -> str:
        """The compiled kernel's name (launch-time fields left out)."""
        math = self.activation_math
        same_as_default = (not self.has_kiln_activation or math is ActivationMath.packed
                           or (math is ActivationMath.tanh and not self.pairs_activation))
        return self._family_name + ("" if same_as_default else f"_{math.value}")

    @property
    def has_kiln_activation(self) -> bool:
        """Whether the epilogue has an activation that activation_math changes."""
        return self.epilogue.parts.activation in KILN_ACTIVATIONS

    @property
    def pairs_activation(self) -> bool:
        """Whether "packed" computes the activation on fp16 pairs here: GELU in the TMA epilogue's
        activation node (sm90 GEMMs and convs), fp16 output, no residual. Elsewhere "packed"
        renders the same kernel as "tanh"."""
        parts = self.epilogue.parts
        tma = self.family is Family.sm90_conv_fprop or (
            self.family is Family.sm90_tma and self.epilogue_schedule is EpilogueSchedule.tma)
        return tma and self.dtype is DType.f16 and not parts.residual and parts.activation in PAIRED_ACTIVATIONS

    @property
    def _family_name(self) -> str:
        d = self.dtype.value
        lay = f"{self.layout_a.value[0]}{self.layout_b.value[0]}"
        tile = "x".join(map(str, self.tile))
        align = "a" + "".join(map(str, self.alignment))
        if self.family is Family.sm80_tensorop:
            warp = "x".join(map(str, self.warp))
            sk = "_sks" if self.split_k_mode == "serial" else ""
            return f"sm80_{d}_{lay}_t{tile}_w{warp}_s{self.stages}_z{self.swizzle}_{align}{sk}_{self.epilogue.value}"
        if self.family is Family.sm90_skinny:
            kw = f"_kw{self.k_warps}" if self.k_warps > 1 else ""
            return (f"skinny_{d}_{lay}_t{tile}_w{self.warp[1]}{kw}_u{self.warp[2] // 32}_s{self.stages}_{align}_"
                    f"{self.epilogue.value}")
        if self.family is Family.sm90_conv_fprop:
            cl = "x".join(map(str, self.cluster))
            sched = f"_{self.schedule.value}" if self.schedule is not Schedule.none else ""
            sched += f"_e{self.epilogue_tile_n}" if self.epilogue_tile_n else ""
            sched += f"_d{self.epilogue_store_stages}" if self.epilogue_store_stages else ""
            return f"conv2d_fprop_sm90_{d}_nhwc_t{tile}_c{cl}{sched}_s{self.stages}_{align}_{self.epilogue.value}"
        if self.family is Family.sm80_conv_fprop:
            warp = "x".join(map(str, self.warp))
            return (f"conv2d_fprop_sm80_{d}_nhwc_{self.conv_iterator.value}_t{tile}_w{warp}_s{self.stages}_"
                    f"z{self.swizzle}_{align}_{self.epilogue.value}")
        cl = "x".join(map(str, self.cluster))
        swap = "_swab" if self.swap_ab else ""
        par = {"parallel": "_skp", "cluster": "_skc"}.get(self.split_k_mode, "")
        par += "i" if self.split_k_interleave else ""
        epi = f"{self.epilogue_tile_n}" if self.epilogue_tile_n else ""
        epi += f"d{self.epilogue_store_stages}" if self.epilogue_store_stages else ""
        epi += "w" if self.warp_stores else ""
        stages = f"_s{self.stages}" if self.stages else ""  # 0: CUTLASS's carve-out, the space's only choice
        stages += "_pc" if self.phase_clock else ""
        stages += f"_pf{self.l2_prefetch}" if self.l2_prefetch else ""
        stages += "_zm" if self.streamk_memset else ""
        stages += "_lc" if self.lean_consumer else ""
        stages += "_wn" if self.wg_split_n else ""
        return (f"sm90_{d}_{lay}_t{tile}_c{cl}_{self.schedule.value}_{self.epilogue_schedule.value}{epi}_"
                f"{self.tile_scheduler.value}{stages}_{align}{swap}{par}_{self.epilogue.value}")

    @property
    def name(self) -> str:
        suffix = ""
        if self.raster is not Raster.heuristic or self.max_swizzle != 1:
            suffix += f"_r{self.raster.value[-1]}{self.max_swizzle}"
        if self.split_k != 1:
            suffix += f"_k{self.split_k}"
        if self.decomposition is not Decomposition.heuristic:
            suffix += f"_d{self.decomposition.value}"
        if self.s2d:
            suffix += f"_s2d{self.s2d}"
        if self.pad_c:
            suffix += f"_padc{self.pad_c}"
        if self.pad_kn:
            suffix += f"_padkn{self.pad_kn}"
        if self.l2_promotion != DEFAULT_L2_PROMOTION:
            suffix += f"_l2p{self.l2_promotion}"
        return self.variant_name + suffix

    @property
    def is_conv(self) -> bool:
        return self.family in (Family.sm80_conv_fprop, Family.sm90_conv_fprop)

    @property
    def is_2x(self) -> bool:
        """CUTLASS 2.x mma.sync kernels (GEMM or conv): warp tiles, stages and swizzle compiled in."""
        return self.family in (Family.sm80_tensorop, Family.sm80_conv_fprop)

    @property
    def k_warps(self) -> int:
        """sm90_skinny: warps sharing a row group's K (tile K / warp K); 1 elsewhere."""
        if self.family is not Family.sm90_skinny or not self.warp[2]:
            return 1
        return self.tile[2] // self.warp[2]

    @property
    def threads(self) -> int:
        if self.family is Family.sm90_skinny:
            return 32 * (self.tile[1] // self.warp[1] * self.k_warps if self.warp[1] else 1)  # row groups x warps along K
        if self.family in (Family.sm80_tensorop, Family.sm80_conv_fprop):
            wm, wn, wk = self.warp
            return 32 * (self.tile[0] // wm) * (self.tile[1] // wn) * (self.tile[2] // wk)
        consumers = 2 if self.schedule in (Schedule.cooperative, Schedule.pingpong) else 1
        return 128 * (consumers + 1)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        return {k: (v.value if isinstance(v, StrEnum) else list(v) if isinstance(v, tuple) else v) for k, v in d.items()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> KernelConfig:
        kinds = {f.name: f.type for f in fields(cls)}
        unknown = set(data) - set(kinds)
        if unknown:
            raise ValueError(f"unknown KernelConfig fields: {sorted(unknown)}")
        conv: dict[str, Any] = {}
        enums = {"family": Family, "dtype": DType, "layout_a": Layout, "layout_b": Layout, "epilogue": Epilogue,
                 "schedule": Schedule, "epilogue_schedule": EpilogueSchedule, "tile_scheduler": TileScheduler,
                 "raster": Raster, "decomposition": Decomposition, "conv_iterator": ConvIterator,
                 "activation_math": ActivationMath}
        for key, value in data.items():
            if key in enums:
                conv[key] = enums[key](value)
            elif isinstance(value, list):
                conv[key] = tuple(int(v) for v in value)
            else:
                conv[key] = value
        return cls(**conv)
