"""What a tuning step compiles and times for a spec: the pruned space's best configs, plus the
launch-time variants of each compiled cubin.

One place for it, so `kiln compile` on a CPU host compiles exactly what a worker will ask for: a
compile cache filled there (same toolchain) is all cache hits on the GPU host.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from service.specs import Conv2dSpec, GemmSpec
from worker.kernels.config import (
    DEFAULT_L2_PROMOTION,
    Decomposition,
    Family,
    KernelConfig,
    Raster,
    Schedule,
    TileScheduler,
)
from worker.kernels.conv_problem import ConvProblem
from worker.kernels.hardware import Hardware
from worker.kernels.problem import GemmProblem
from worker.kernels.prune import (
    PruneReport,
    Rule,
    cluster_split_in_one_wave,
    parallel_split_divides_k,
    prune,
    skinny_needs_clusters,
    skinny_split_useful,
    skinny_tile_fits,
    split_k_worthwhile,
    streamk_runs_as_asked,
)
from worker.kernels.prune_conv import prune_conv
from worker.kernels.space import SKINNY_SPLITS, full_conv_space, full_space

# What decides whether a slice count is worth a launch: CUTLASS's split kernels, the weight-streaming one.
CUTLASS_SPLIT_RULES: tuple[Rule, ...] = (split_k_worthwhile, parallel_split_divides_k, cluster_split_in_one_wave,
                                         streamk_runs_as_asked)
SKINNY_SPLIT_RULES: tuple[Rule, ...] = (skinny_needs_clusters, skinny_tile_fits, skinny_split_useful)


@dataclass
class Selection:
    report: PruneReport  # report.kept: the configs to compile
    variants: list[KernelConfig]  # what to time: kept configs and their launch-time variants
    title: str


def expand_runtime_variants(configs: list[KernelConfig], problem: GemmProblem | None = None,
                            hw: Hardware | None = None) -> list[KernelConfig]:
    """Raster order, swizzle, the split count (stream-K's, parallel split-K's) and stream-K's
    decomposition are launch arguments of the same sm90 cubin, as the slice count is of a 2.x serial split-K cubin: trying them costs a few
    milliseconds of GPU time and no compile."""
    out: list[KernelConfig] = []

    def add_splits(cfg: KernelConfig, counts: tuple[int, ...], rules: tuple[Rule, ...] = CUTLASS_SPLIT_RULES) -> None:
        """The same cubin at other slice counts, where the split rules (judged in the kernel's
        own frame) accept them."""
        if problem is None or hw is None:
            return
        for splits in counts:
            split = replace(cfg, split_k=splits, decomposition=Decomposition.heuristic)
            run = problem.as_run_by(split)
            if split not in out and all(rule(split, run, hw) is None for rule in rules):
                out.append(split)

    def add_forced_streamk(cfg: KernelConfig) -> None:
        """The same cubin told to share tiles where CUTLASS's heuristic would not (a one-wave
        problem whose tail is at least half a wave), when that is a different launch."""
        if problem is None or hw is None:
            return
        forced = replace(cfg, split_k=1, decomposition=Decomposition.streamk)
        if forced not in out and streamk_runs_as_asked(forced, problem.as_run_by(forced), hw) is None:
            out.append(forced)

    for cfg in configs:
        out.append(cfg)
        if cfg.family is Family.sm80_tensorop and cfg.split_k_mode == "serial":
            # The slice count of a 2.x serial split-K kernel is a launch argument too: skinny GEMMs
            # get more slices than the cost model ranks, for more bytes in flight per SM.
            add_splits(cfg, (2, 4, 8, 16))
            continue
        if cfg.family is Family.sm90_skinny:  # its cluster size along K is a launch argument too
            add_splits(cfg, SKINNY_SPLITS, SKINNY_SPLIT_RULES)
            continue
        if cfg.family is not Family.sm90_tma:
            continue
        if cfg.split_k_mode == "cluster":  # one tile per cluster: no raster; its slice count is a launch argument
            add_splits(cfg, (2, 4, 8))
            continue
        if cfg.schedule is Schedule.single:  # a CTA per tile in block order: no raster to choose
            continue
        out.append(replace(cfg, raster=Raster.along_m, max_swizzle=2))
        out.append(replace(cfg, raster=Raster.along_n, max_swizzle=2))
        if cfg.split_k_mode == "parallel":
            add_splits(cfg, (2, 3, 4, 6, 8))  # a builder argument of the same cubin
        if cfg.tile_scheduler is TileScheduler.streamk:
            add_splits(cfg, (1, 2, 4))
            add_forced_streamk(cfg)
    return out


# The TMA loads' L2 promotion (a launch-time field) moves a kernel by a few percent either way:
# square.1024's winner ran 9.62 µs at 256 bytes against 9.82 at CUTLASS's 128 in both of session 19
# run B's turns, decode.m64's 29.3 against 28.8, the rest within noise (run A, every suite winner).
# Too small to double every candidate's timing for; the measurement times it for the leaders only.
LEADER_L2_PROMOTIONS = (256,)


def leader_twins(cfg: KernelConfig) -> list[KernelConfig]:
    """Launch-time twins the measurement times only for the first pass's leaders (gpu_bench)."""
    if cfg.family is not Family.sm90_tma or cfg.l2_promotion != DEFAULT_L2_PROMOTION:
        return []
    return [replace(cfg, l2_promotion=size) for size in LEADER_L2_PROMOTIONS]


def select_gemm(spec: GemmSpec, arch: str, hw: Hardware, limit: int) -> Selection:
    problem = GemmProblem.from_spec(spec)
    report = prune(full_space(problem, arch), problem, hw, limit=limit)
    return Selection(report, expand_runtime_variants(report.kept, problem, hw),
                     f"{problem.m}x{problem.n}x{problem.k} {spec.epilogue.value}")


def select_conv(spec: Conv2dSpec, arch: str, hw: Hardware, limit: int) -> Selection:
    """Conv2d fprop as an implicit GEMM. BOLT: a 1x1 conv is a GEMM, so for pointwise convs the
    sm90 GEMM kernels compete with the conv kernels (unpadded: convs pad channels instead)."""
    problem = ConvProblem.from_spec(spec)
    report = prune_conv(full_conv_space(problem, arch), problem, hw, limit=limit)
    variants = list(report.kept)
    if problem.is_pointwise and hw.has_wgmma:
        gemm = prune(full_space(problem.gemm, arch), problem.gemm, hw, limit=limit)
        sm90 = [c for c in gemm.kept if c.family is Family.sm90_tma and not c.pad_kn]
        report.total += gemm.total
        report.survivors += gemm.survivors
        report.kept += sm90
        variants += expand_runtime_variants(sm90, problem.gemm, hw)
    g = problem.gemm
    title = (f"conv2d {problem.n}x{problem.h}x{problem.w}x{problem.c}→{problem.k} {problem.r}x{problem.s} "
             f"(implicit GEMM {g.m}x{g.n}x{g.k}) {spec.epilogue.value}")
    return Selection(report, variants, title)
