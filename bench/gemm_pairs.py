"""`kiln bench pairs` (`python -m bench.gemm_pairs`): near-neighbour GEMM configs timed side by side on the GPU.

    kiln bench pairs [--only bert-base.ffn2 …] [--out FILE]

The ranked search spreads its budget over tile shapes, so it rarely times two configs that differ
in one template parameter; the ranking model's guesses (TMA vs no-smem epilogue, 2-CTA clusters,
K-tile depth) then go unchecked. This times, for the suite shapes where Kiln trails cuBLAS most,
each wave-sized tile under every epilogue schedule × cluster pairing, through the worker's own
measurement path (verified first, then timed against cuBLAS in the same run), and prints the ratios.
Writes bench/results/gemm_pairs_<gpu>_<date>.json.
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.common import device_provenance, save_result
from service.specs import GemmSpec
from service.specs.epilogues import Epilogue
from service.specs.gemm import DType, Layout
from worker.kernels.config import (
    ActivationMath,
    Decomposition,
    EpilogueSchedule,
    Family,
    KernelConfig,
    Schedule,
    TileScheduler,
)
from worker.kernels.hardware import hardware_for
from worker.kernels.problem import GemmProblem
from worker.kernels.prune import Rule, four_cta_cluster_without_an_extra_round, prune
from worker.kernels.render import warp_stores_supported
from worker.kernels.space import SWAP_AB_MAX_M, full_space, skinny_space, sm90_tall_swapped_configs

SHAPES = {  # the suite's shapes furthest below cuBLAS in session 4's fleet run
    "bert-base.attn_out": (4096, 768, 768, "none"),
    "bert-base.ffn2": (4096, 768, 3072, "bias"),
    "bert-large.ffn2": (4096, 1024, 4096, "bias"),
    "square.1024": (1024, 1024, 1024, "none"),
}
TILES = [((128, 192, 64), Schedule.cooperative), ((128, 128, 64), Schedule.cooperative),
         ((128, 128, 128), Schedule.pingpong), ((64, 128, 128), Schedule.pingpong)]
PAIRINGS = list(itertools.product((EpilogueSchedule.tma, EpilogueSchedule.nosmem), ((1, 1), (1, 2))))


DECODE = {"decode.m128": (128, 4096, 11008, "none")}
# cuBLAS's decode.m128 kernel (nvjet 128x64, K tile 64, 1x2 cluster, split-K): the same tile under
# each cluster, epilogue schedule and tile scheduler (stream-K's split counts come at launch time).
DECODE_GRID = list(itertools.product((EpilogueSchedule.nosmem, EpilogueSchedule.tma), ((1, 1), (1, 2)),
                                     (TileScheduler.persistent, TileScheduler.streamk)))


def _legal(configs: list[KernelConfig], problem: GemmProblem, skip: tuple[Rule, ...] = ()) -> list[KernelConfig]:
    """The configs the hardware rules accept (smem, registers, …), in the grid's order; `skip`:
    rules an experiment measures across instead."""
    legal = set(prune(configs, problem, hardware_for("sm_90a", 132), skip=skip).kept)
    return [c for c in configs if c in legal]


def decode_grid() -> list[KernelConfig]:
    from worker.selection import expand_runtime_variants

    m, n, k, _ = DECODE["decode.m128"]
    problem = GemmProblem.from_spec(GemmSpec(m=m, n=n, k=k))
    configs = [KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.none, (128, 64, 64),
                            schedule=Schedule.cooperative, epilogue_schedule=es, cluster=cluster, tile_scheduler=ts)
               for es, cluster, ts in DECODE_GRID]
    return expand_runtime_variants(_legal(configs, problem), problem, hardware_for("sm_90a", 132))


KTILE = {"square.1024": (1024, 1024, 1024, "none"), "bert-base.attn_out": (4096, 768, 768, "none"),
         "bert-base.qkv": (4096, 2304, 768, "none"), "bert-large.attn_out": (4096, 1024, 1024, "none")}
# One-wave shapes run 8-12 K iterations: does a 64-deep K tile (cuBLAS's on square.1024: 128x64,
# K 64 x 8 stages) fill the pipeline sooner than the 128-deep one the ranking prefers? Each tile
# under both depths, TMA epilogue, 1x2 cluster.
KTILE_TILES = [((64, 128), Schedule.pingpong), ((128, 64), Schedule.cooperative), ((128, 64), Schedule.pingpong),
               ((128, 128), Schedule.pingpong)]


def ktile_grid() -> list[KernelConfig]:
    configs = [KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.none, (*mn, tk), schedule=sched,
                            epilogue_schedule=EpilogueSchedule.tma, cluster=(1, 2), tile_scheduler=TileScheduler.persistent)
               for (mn, sched), tk in itertools.product(KTILE_TILES, (64, 128))]
    return _legal(configs, GemmProblem.from_spec(GemmSpec(m=4096, n=1024, k=1024)))


# Where the one-wave gap goes: the winning tile of each shape (and cuBLAS) over growing K. Time
# linear in K splits into a fixed part (launch, pipeline fill, epilogue, tail) and a per-K-step
# part (the mainloop's rate); a gap that stays flat in µs as K grows is fixed cost.
# (Rows say "sweep", not "shape": their K is not the suite shape's, so `kiln bench fit` skips them.)
KSWEEP = {"square.1024": ((1024, 1024), (64, 128, 128), Schedule.pingpong),
          "bert-base.attn_out": ((4096, 768), (128, 192, 64), Schedule.cooperative),
          # two-round grids whose kernel alone needs 2% (o_proj) and 0.7% (down) more cycles than
          # nvjet at the same clock (session 36): is it the fixed part or the rate?
          "llama7b.o_proj": ((2048, 4096), (256, 128, 64), Schedule.cooperative)}
KSWEEP_K = (256, 512, 1024, 2048, 4096)


# Where decode.m16's time goes (session 14): Kiln's weight-streaming kernel (its best cluster-split
# config and its best unsplit one) and CUTLASS's swapped winner at M=16, N=4096 over growing K;
# a straight line through each splits its time into a fixed part and a rate (bench.stream_floor
# measures the same for a kernel that only reads W).
DECODE_KSWEEP_K = (256, 1024, 4096, 16384)
DECODE_KSWEEP = [
    KernelConfig(Family.sm90_skinny, DType.f16, Layout.row, Layout.col, Epilogue.none, (16, 64, 64),
                 warp=(16, 16, 64), stages=2, split_k=8),
    KernelConfig(Family.sm90_skinny, DType.f16, Layout.row, Layout.col, Epilogue.none, (16, 32, 512),
                 warp=(16, 16, 64), stages=3),
    KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.none, (64, 16, 128),
                 schedule=Schedule.pingpong, epilogue_schedule=EpilogueSchedule.nosmem,
                 tile_scheduler=TileScheduler.persistent, swap_ab=True),
]


def ksweep_grid(tile: tuple[int, int, int], schedule: Schedule) -> list[KernelConfig]:
    return [KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.none, tile, schedule=schedule,
                         epilogue_schedule=EpilogueSchedule.tma, cluster=(1, 2), tile_scheduler=TileScheduler.persistent)]


# Where the bias costs: each problem's winning config with and without its bias epilogue. (Session 8
# ran it twice: CUTLASS's bias broadcast, a per-tile global -> shared copy and barrier, against a
# register-only version of it, which was slower: bench/results/gemm_pairs_h200_20261130_bias.json.)
BIAS = {"r50.res3.1x1b.gemm": (25088, 512, 128, "bias", (256, 128, 64), Schedule.cooperative, (1, 2)),
        "r50.res2.1x1a.gemm": (100352, 64, 64, "bias_relu", (256, 64, 64), Schedule.pingpong, (2, 1)),
        "r50.res4.1x1b.gemm": (6272, 1024, 256, "bias", (128, 128, 64), Schedule.pingpong, (1, 2)),
        "bert-base.ffn2": (4096, 768, 3072, "bias", (128, 192, 64), Schedule.cooperative, (1, 2)),
        "bert-base.ffn1": (4096, 3072, 768, "bias_gelu", (128, 128, 64), Schedule.pingpong, (1, 2)),
        # and two one-wave suite winners (no bias), for launch-side A/B runs of the same cubins
        "square.1024": (1024, 1024, 1024, "none", (64, 128, 128), Schedule.pingpong, (1, 2)),
        "bert-base.attn_out": (4096, 768, 768, "none", (128, 192, 64), Schedule.cooperative, (1, 2))}


def bias_grid(epilogue: str, tile: tuple[int, int, int], schedule: Schedule,
              cluster: tuple[int, int]) -> list[KernelConfig]:
    without_bias = epilogue.removeprefix("bias_") if epilogue.startswith("bias_") else "none"
    return [KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue(e), tile, schedule=schedule,
                         epilogue_schedule=EpilogueSchedule.tma, cluster=cluster, tile_scheduler=TileScheduler.persistent)
            for e in dict.fromkeys((epilogue, without_bias, "none"))]


# Subtile stores in flight in the TMA epilogue (epilogue_store_stages; CUTLASS's builder: 2): the
# store-bound pointwise convs' GEMMs and two one-wave GEMMs, each at its stored winning config
# (tile, schedule, cluster, subtile width) with CUTLASS's count and the raised ones.
STORES = {"r50.res3.1x1b.gemm": (25088, 512, 128, "bias", (256, 128, 64), Schedule.cooperative, (1, 2), (4, 8)),
          "r50.res2.1x1a.gemm": (100352, 64, 64, "bias_relu", (256, 64, 64), Schedule.pingpong, (2, 1), (4, 8)),
          "r50.res4.1x1b.gemm": (6272, 1024, 256, "bias", (128, 128, 64), Schedule.pingpong, (1, 2), (4, 8)),
          "r50.res2.1x1b.gemm": (100352, 256, 64, "bias", (256, 128, 64), Schedule.cooperative, (2, 1), (4,)),
          "r50.res2.1x1c.gemm": (100352, 64, 256, "bias_relu", (256, 64, 64), Schedule.pingpong, (2, 1), (8,)),
          "bert-base.attn_out": (4096, 768, 768, "none", (128, 192, 64), Schedule.cooperative, (1, 2), (6,)),
          "square.1024": (1024, 1024, 1024, "none", (64, 128, 128), Schedule.pingpong, (1, 2), (4,))}


def stores_grid(epilogue: str, tile: tuple[int, int, int], schedule: Schedule, cluster: tuple[int, int],
                stages: tuple[int, ...]) -> list[KernelConfig]:
    base = KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue(epilogue), tile, schedule=schedule,
                        epilogue_schedule=EpilogueSchedule.tma, cluster=cluster, tile_scheduler=TileScheduler.persistent)
    return [base, *(replace(base, epilogue_store_stages=s) for s in stages)]


# Stream-K against the persistent scheduler at the same tile, where waves leave SMs idle (session 9
# found its launches clearing the whole workspace, partial tiles included; now only the barriers):
# each shape under cooperative 128-row tiles at K depth 64 and 128, 1x1 and 1x2 clusters, the
# persistent kernel, stream-K as CUTLASS's heuristic runs it (data-parallel for res5.1x1c and
# square.1024: worker/kernels/streamk.py), stream-K forced, and stream-K told to split K in 2.
STREAMK = {"r50.res5.1x1c.gemm": (1568, 512, 2048, "bias_relu"),  # 104 tiles of 128x64 for 132 SMs
           "decode.m128": (128, 4096, 11008, "none"),
           "decode.m64": (64, 11008, 4096, "none"),
           "square.1024": (1024, 1024, 1024, "none")}
STREAMK_TILES = ((128, 64, 64), (128, 128, 64), (128, 64, 128), (128, 128, 128))


def streamk_grid(m: int, n: int, k: int, epilogue: str) -> list[KernelConfig]:
    configs = [KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue(epilogue), tile,
                            schedule=Schedule.cooperative, epilogue_schedule=EpilogueSchedule.tma, cluster=cluster,
                            tile_scheduler=sched)
               for tile, cluster, sched in itertools.product(STREAMK_TILES, ((1, 1), (1, 2)),
                                                             (TileScheduler.persistent, TileScheduler.streamk))]
    problem = GemmProblem.from_spec(GemmSpec(m=m, n=n, k=k, epilogue=Epilogue(epilogue)))
    # a stream-K cubin is in if either decomposition passes the rules (the degenerate one is timed too)
    forced = [replace(c, decomposition=Decomposition.streamk) for c in configs]
    legal = {c.compiled for c in _legal(configs, problem) + _legal(forced, problem)}
    return [v for c in configs if c in legal
            for v in ((c, replace(c, decomposition=Decomposition.streamk), replace(c, split_k=2))
                      if c.tile_scheduler is TileScheduler.streamk else (c,))]


# Per-warp TMA stores (KernelConfig.warp_stores, templates/warp_store_epilogue.cuh.j2) against
# CUTLASS's epilogue with its two CTA-wide barriers per subtile: every stored suite winner that can
# take them (TMA epilogue, no residual, not swapped), and the store-bound pointwise convs' GEMMs.
WARP_STORES_FROM = Path("bench/results/gemm_h200_20261201_session13_g_replay.json")
WARP_STORES_EXTRA = ("r50.res3.1x1b.gemm", "r50.res2.1x1a.gemm", "r50.res4.1x1b.gemm")


def winner_twins(winners_file: Path, twin: Callable[[KernelConfig], KernelConfig | None]
                 ) -> dict[str, tuple[GemmSpec, list[KernelConfig]]]:
    """Each stored winner (a suite result's rows) beside its twin, one knob apart, where `twin` gives one."""
    pairs: dict[str, tuple[GemmSpec, list[KernelConfig]]] = {}
    shapes = json.loads(winners_file.read_text())["shapes"] if winners_file.exists() else []
    for row in shapes:
        cfg = KernelConfig.from_dict(row["winner"])
        other = twin(cfg)
        if other is not None:
            spec = GemmSpec(m=row["m"], n=row["n"], k=row["k"], dtype=row["dtype"], epilogue=row["epilogue"])
            pairs[row["name"]] = (spec, [cfg, other])
    return pairs


def warp_store_pairs(winners_file: Path = WARP_STORES_FROM) -> dict[str, tuple[GemmSpec, list[KernelConfig]]]:
    """Each problem's winning config and its per-warp-store twin (the only difference)."""
    pairs = winner_twins(winners_file, lambda c: replace(c, warp_stores=True) if warp_stores_supported(c) else None)
    for name in WARP_STORES_EXTRA:
        m, n, k, epilogue, tile, sched, cluster, _ = STORES[name]
        [base, *_] = stores_grid(epilogue, tile, sched, cluster, ())
        pairs[name] = (GemmSpec(m=m, n=n, k=k, epilogue=Epilogue(epilogue)), [base, replace(base, warp_stores=True)])
    return pairs


# Clusters of four CTAs (2x2, 4x1, 1x4) against each stored winner's own (1x2 on every
# TMA-epilogue winner): each multicast halves again the L2-to-SM traffic of the operand it shares,
# which is what one-wave grids (square.1024, attn_out: every CTA streams its K at once) might be
# short of. Their persistent grid is sized from the driver's count of co-resident clusters
# (render.queries_cluster_occupancy).
BIG_CLUSTERS = ((2, 2), (4, 1), (1, 4))


def cluster_pairs(winners_file: Path = WARP_STORES_FROM) -> dict[str, tuple[GemmSpec, list[KernelConfig]]]:
    """Each problem's winning config and the same kernel under every four-CTA cluster the rules
    accept for it (enough tiles along the shared dimension, hardware limits)."""
    pairs: dict[str, tuple[GemmSpec, list[KernelConfig]]] = {}
    shapes = json.loads(winners_file.read_text())["shapes"] if winners_file.exists() else []
    for row in shapes:
        cfg = KernelConfig.from_dict(row["winner"])
        if cfg.family is not Family.sm90_tma:
            continue
        spec = GemmSpec(m=row["m"], n=row["n"], k=row["k"], dtype=row["dtype"], epilogue=row["epilogue"])
        problem = GemmProblem.from_spec(spec)
        # every rule but the one this experiment set (run B measured where it draws the line)
        twins = _legal([replace(cfg, cluster=c) for c in BIG_CLUSTERS], problem,
                       skip=(four_cta_cluster_without_an_extra_round,))
        if twins:
            pairs[row["name"]] = (spec, [cfg, *twins])
    return pairs


# Cluster split-K (templates/cluster_splitk_kernel.cuh.j2) on the shapes whose tiles leave SMs idle:
# each stored winner beside every cluster-split config the rules keep for the problem (decode shapes:
# swapped operands and the no-smem epilogue only, as their winners), at each slice count the
# selection would launch.
CLUSTER_SPLIT_SHAPES = ("decode.m16", "decode.m128", "square.1024")  # decode.m64: 86+ tiles, none fits


def cluster_split_pairs(winners_file: Path = WARP_STORES_FROM) -> dict[str, tuple[GemmSpec, list[KernelConfig]]]:
    """Each wave-limited problem's winning config and its cluster-split rivals."""
    from worker.selection import expand_runtime_variants

    hw = hardware_for("sm_90a", 132)
    pairs: dict[str, tuple[GemmSpec, list[KernelConfig]]] = {}
    shapes = json.loads(winners_file.read_text())["shapes"] if winners_file.exists() else []
    for row in shapes:
        if row["name"] not in CLUSTER_SPLIT_SHAPES:
            continue
        winner = KernelConfig.from_dict(row["winner"])
        spec = GemmSpec(m=row["m"], n=row["n"], k=row["k"], dtype=row["dtype"], epilogue=row["epilogue"])
        problem = GemmProblem.from_spec(spec)
        decode = problem.m <= SWAP_AB_MAX_M  # as their winners: swapped, no-smem epilogue (narrow tiles)
        rivals = [c for c in full_space(problem, "sm_90a") if c.split_k_mode == "cluster"
                  and (not decode or (c.swap_ab and c.epilogue_schedule is EpilogueSchedule.nosmem))]
        kept = prune(rivals, problem, hw).kept
        pairs[row["name"]] = (spec, [winner, *expand_runtime_variants(kept, problem, hw)])
    return pairs


# Epilogue activation math (KernelConfig.activation_math, templates/kiln_activation.cuh.j2): each
# fused suite winner under CUTLASS's functors, Kiln's tanh forms and Kiln's fp16 pairs in one
# problem, then the same kernel with each part of its epilogue alone (nothing, the bias, the
# activation) in problems of their own (their library differs): the fusion cost and where it goes.
ACTIVATION_SHAPES = ("bert-base.ffn1", "bert-large.ffn1", "llama7b.up")


def activation_problems(only: list[str] | None = None, winners_file: Path = WARP_STORES_FROM
                        ) -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    """(label, spec, configs timed together) for each fused winner and each part of its epilogue."""
    problems: list[tuple[str, GemmSpec, list[KernelConfig]]] = []
    shapes = json.loads(winners_file.read_text())["shapes"] if winners_file.exists() else []
    for row in shapes:
        if row["name"] not in ACTIVATION_SHAPES or (only and row["name"] not in only):
            continue
        cfg = KernelConfig.from_dict(row["winner"])
        spec = GemmSpec(m=row["m"], n=row["n"], k=row["k"], dtype=row["dtype"], epilogue=row["epilogue"])
        # the maths that render different kernels here (SiLU's "tanh" and "packed" are one kernel)
        variants = list({v.name: v for v in (replace(cfg, activation_math=m) for m in ActivationMath)}.values())
        problems.append((row["name"], spec, variants))
        parts = spec.epilogue.parts
        alone = [Epilogue.none] + ([Epilogue.bias, Epilogue(parts.activation.value)] if parts.bias else [])
        for epilogue in alone:
            twin = replace(cfg, epilogue=epilogue)
            has_activation = epilogue.parts.activation.value != "identity"
            maths = (ActivationMath.cutlass, ActivationMath.packed) if has_activation else (ActivationMath.cutlass,)
            problems.append((f"{row['name']}.{epilogue.value}", spec.model_copy(update={"epilogue": epilogue}),
                             [replace(twin, activation_math=m) for m in maths]))
    return problems


# Each replayed suite winner beside its twins, one problem per shape, timed in turns.
REPLAYED_FROM = Path("scripts/device/replay_session18.json")


def replayed_problems(suite_file: Path, twins: Callable[[KernelConfig, GemmProblem], list[KernelConfig]],
                      only: list[str] | None = None, winners_file: Path = REPLAYED_FROM
                      ) -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    """(name, spec, [winner, *twins]) for every replayed sm90 winner of the suite that has twins."""
    from bench.gemm_suite import suite_specs

    winners = {r["name"]: KernelConfig.from_dict(r["winner"]) for r in json.loads(winners_file.read_text())["shapes"]}
    problems = []
    for name, spec in suite_specs(suite_file):
        cfg = winners.get(name)
        if cfg is None or cfg.family is not Family.sm90_tma or (only and name not in only):
            continue
        others = [t for t in twins(cfg, GemmProblem.from_spec(spec)) if t != cfg]
        if others:
            problems.append((name, spec, [cfg, *others]))
    return problems


# The L2 promotion of the sm90 kernels' tiled TMA loads (KernelConfig.l2_promotion, a launch-time
# field: the host encodes the descriptors): CUTLASS's 128 bytes, 256 (what DeepGEMM and other
# hand-written Hopper GEMMs ask for: each request also brings the next 128 bytes of the row, the
# next K block's, into L2) and none.
L2_PROMOTION_SIZES = (128, 256, 0)


def l2_promotion_twins(cfg: KernelConfig, _: GemmProblem) -> list[KernelConfig]:
    return [replace(cfg, l2_promotion=size) for size in L2_PROMOTION_SIZES]


def tall_swapped_twins(cfg: KernelConfig, problem: GemmProblem) -> list[KernelConfig]:
    """The swapped 128x192 ping-pong tile (space.sm90_tall_swapped_configs) under both 2-CTA
    clusters, as the search would build it for this problem."""
    return list(sm90_tall_swapped_configs(problem))


SKINNY = {"decode.m16": (16, 4096, 4096, "none"), "decode.m64": (64, 11008, 4096, "none"),
          "decode.m128": (128, 4096, 11008, "none"), "decode.m16.bias_gelu": (16, 4096, 4096, "bias_gelu")}


def skinny_grid(m: int, n: int, k: int, epilogue: str) -> list[KernelConfig]:
    """The weight-streaming configs the rules accept for the problem, at every cluster split, with
    one token tile over M (two for M = 128): no ranking, no limit (each compiles in about a second)."""
    problem = GemmProblem.from_spec(GemmSpec(m=m, n=n, k=k, epilogue=Epilogue(epilogue)))
    whole = min(128, max(8, 1 << (m - 1).bit_length()))
    tiles_m = (whole, whole // 2) if whole == 128 else (whole,)
    configs = [c for c in skinny_space(problem) if c.tile[0] in tiles_m]
    return prune(configs, problem, hardware_for("sm_90a", 132)).kept


def grid(epilogue: str) -> list[KernelConfig]:
    """Every tile × (epilogue schedule, cluster) pairing that the hardware rules accept."""
    configs = [KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue(epilogue), tile, schedule=sched,
                            epilogue_schedule=es, cluster=cluster, tile_scheduler=TileScheduler.persistent)
               for (tile, sched), (es, cluster) in itertools.product(TILES, PAIRINGS)]
    return _legal(configs, GemmProblem.from_spec(GemmSpec(m=4096, n=1024, k=4096, epilogue=Epilogue(epilogue))))


def twins_in_turn(step: Any, pairs: dict[str, tuple[GemmSpec, list[KernelConfig]]], only: list[str] | None,
                  rows: list[dict[str, Any]], tiles: set[tuple[int, int, int]]) -> None:
    """Each problem's twins in one problem (verified, timed, re-timed interleaved with the library),
    every cubin compiled in one parallel batch first."""
    pairs = {name: pair for name, pair in pairs.items() if not only or name in only}
    step.compiler.compile_all([c for _, configs in pairs.values() for c in configs], target_arch="sm_90a")
    for name, (spec, configs) in pairs.items():
        tiles.add(configs[0].tile)
        time_twins(step, name, spec, configs, rows)


def time_twins(step: Any, name: str, spec: GemmSpec, configs: list[KernelConfig], rows: list[dict[str, Any]]) -> None:
    """One problem, every twin in it: verified, timed and re-timed interleaved with the library."""
    out = step.tune_configs(spec, configs, "sm_90a", lambda **_: None)
    lib = out.baseline_time_us
    for c in out.candidates:
        rows.append({"shape": name, "name": c["name"], "status": c["status"], "time_us": c.get("time_us"),
                     "spread_us": c.get("spread_us"), "library": out.baseline_library, "library_us": lib,
                     "ratio_library_over_kiln": lib / c["time_us"] if lib and c.get("time_us") else None})
        print(f"{name:20s} {c['name']:72s} {c['status']:10s} {c.get('time_us') or 0:7.2f} µs  "
              f"library {lib or 0:7.2f} µs", flush=True)


def twins_run(label: str, spec: GemmSpec, configs: list[KernelConfig], turns: int, out: Path | None) -> None:
    """A device script's whole run (scripts/device/session16_g.py, session17_f.py): compile the
    configs, time them `turns` times as one interleaved problem beside the library, save the rows."""
    from worker.gpu_step import GpuTuningStep

    step = GpuTuningStep(0)
    rows: list[dict[str, Any]] = []
    try:
        step.compiler.compile_all([c.compiled for c in configs], target_arch="sm_90a")
        for turn in range(1, turns + 1):
            time_twins(step, f"{label}#{turn}", spec, configs, rows)
    finally:
        step.close()
    payload = {**device_provenance(step.device()), "benchmark": "gemm_pairs", "rows": rows}
    print(json.dumps({"saved": str(save_result(payload, "gemm_pairs", step.device().gpu_name, out))}))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--only", nargs="*", default=None)
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--decode", action="store_true", help="decode.m128 under cuBLAS's own tile, every cluster/"
                   "epilogue/scheduler pairing, instead of the mid-size shapes")
    p.add_argument("--ktile", action="store_true", help="one-wave shapes, each tile with a 64- and a 128-deep K tile")
    p.add_argument("--bias", action="store_true", help="winning configs with and without their bias (see BIAS)")
    p.add_argument("--stores", action="store_true", help="winning configs with 2 (CUTLASS's) and more TMA-epilogue "
                   "subtile stores in flight (see STORES)")
    p.add_argument("--warp-stores", action="store_true", help="stored winners with CUTLASS's TMA epilogue and with "
                   "per-warp TMA stores (see WARP_STORES_FROM)")
    p.add_argument("--clusters", action="store_true", help="stored winners under their own cluster and under "
                   "each four-CTA cluster (see BIG_CLUSTERS)")
    p.add_argument("--cluster-split", action="store_true", help="wave-limited shapes' stored winners against every "
                   "cluster split-K config the rules keep (see CLUSTER_SPLIT_SHAPES)")
    p.add_argument("--activation", action="store_true", help="fused suite winners under each activation math, and "
                   "with each part of their epilogue alone (see ACTIVATION_SHAPES)")
    p.add_argument("--suite", type=Path, default=Path("../shared/bench/suite.json"))
    p.add_argument("--l2-promotion", action="store_true", help="the suite's replayed winners under each TMA L2 "
                   "promotion (see REPLAYED_FROM)")
    p.add_argument("--tall-swapped", action="store_true", help="the suite's replayed winners beside the swapped "
                   "128x192 ping-pong tile")
    p.add_argument("--turns", type=int, default=1, help="--activation, --l2-promotion, --tall-swapped: rounds over "
                   "every problem (clock drift)")
    p.add_argument("--streamk", action="store_true", help="wave-limited shapes: stream-K against the persistent "
                   "scheduler at the same cooperative tiles (see STREAMK)")
    p.add_argument("--skinny", action="store_true", help="decode shapes: every weight-streaming config (tile, warps, "
                   "unroll, cluster split) against cuBLAS")
    p.add_argument("--ksweep", action="store_true", help="one-wave shapes' winning tiles and cuBLAS over growing K: "
                   "fixed cost against mainloop rate")
    p.add_argument("--ksweep-only", nargs="+", choices=sorted(KSWEEP), help="--ksweep on these shapes only")
    p.add_argument("--decode-ksweep", action="store_true", help="decode.m16's weight-streaming and CUTLASS kernels "
                   "over growing K: fixed cost against streaming rate (see DECODE_KSWEEP)")
    args = p.parse_args()
    from worker.gpu_step import GpuTuningStep

    step = GpuTuningStep(0)
    rows: list[dict[str, Any]] = []
    tiles: set[tuple[int, int, int]] = set()
    try:
        if args.ksweep:
            sweeps = {name: v for name, v in KSWEEP.items() if not args.ksweep_only or name in args.ksweep_only}
            for name, ((m, n), tile, sched) in sweeps.items():
                for k in KSWEEP_K:
                    out = step.tune_configs(GemmSpec(m=m, n=n, k=k), ksweep_grid(tile, sched), "sm_90a", lambda **_: None)
                    best = min((c["time_us"] for c in out.candidates if c.get("time_us")), default=None)
                    rows.append({"sweep": name, "m": m, "n": n, "k": k, "tile": list(tile), "time_us": best,
                                 "library": out.baseline_library, "library_us": out.baseline_time_us})
                    print(f"{name:20s} K={k:5d} kiln {best or 0:7.2f} µs  library {out.baseline_time_us or 0:7.2f} µs",
                          flush=True)
            tiles |= {t for _, t, _ in sweeps.values()}
        if args.decode_ksweep:
            for k in DECODE_KSWEEP_K:
                out = step.tune_configs(GemmSpec(m=16, n=4096, k=k), DECODE_KSWEEP, "sm_90a", lambda **_: None)
                for c in out.candidates:
                    rows.append({"sweep": "decode.m16", "m": 16, "n": 4096, "k": k, "name": c["name"],
                                 "status": c["status"], "time_us": c.get("time_us"), "library": out.baseline_library,
                                 "library_us": out.baseline_time_us})
                    print(f"decode.m16 K={k:5d} {c['name']:64s} {c.get('time_us') or 0:7.2f} µs  "
                          f"library {out.baseline_time_us or 0:7.2f} µs", flush=True)
        if args.bias:  # every config compiled in one parallel batch first: each tune call below hits the cache
            step.compiler.compile_all([c for name, (_, _, _, e, t, s, cl) in BIAS.items() for c in bias_grid(e, t, s, cl)
                                       if not args.only or name in args.only], target_arch="sm_90a")
        if args.stores:
            step.compiler.compile_all([c for name, (*_, e, t, s, cl, st) in STORES.items()
                                       for c in stores_grid(e, t, s, cl, st) if not args.only or name in args.only],
                                      target_arch="sm_90a")
        if args.streamk:
            step.compiler.compile_all([c for name, shape in STREAMK.items() for c in streamk_grid(*shape)
                                       if not args.only or name in args.only], target_arch="sm_90a")
        if args.warp_stores:
            twins_in_turn(step, warp_store_pairs(), args.only, rows, tiles)
        if args.clusters:
            twins_in_turn(step, cluster_pairs(), args.only, rows, tiles)
        if args.cluster_split:
            twins_in_turn(step, cluster_split_pairs(), args.only, rows, tiles)
        if args.activation or args.l2_promotion or args.tall_swapped:
            problems = activation_problems(args.only) if args.activation else []
            if args.l2_promotion:
                problems += replayed_problems(args.suite, l2_promotion_twins, args.only)
            if args.tall_swapped:
                problems += [(f"{name}.tall", spec, configs) for name, spec, configs
                             in replayed_problems(args.suite, tall_swapped_twins, args.only)]
            step.compiler.compile_all([c.compiled for _, _, configs in problems for c in configs], target_arch="sm_90a")
            for turn in range(1, args.turns + 1):
                for label, spec, configs in problems:
                    tiles.add(configs[0].tile)
                    time_twins(step, f"{label}#{turn}", spec, configs, rows)
        for name, (m, n, k, epilogue, tile, sched, cluster, stages) in (STORES.items() if args.stores else {}.items()):
            if args.only and name not in args.only:
                continue
            tiles.add(tile)
            time_twins(step, name, GemmSpec(m=m, n=n, k=k, epilogue=Epilogue(epilogue)),
                       stores_grid(epilogue, tile, sched, cluster, stages), rows)
        for name, (m, n, k, epilogue, tile, sched, cluster) in (BIAS.items() if args.bias else {}.items()):
            if args.only and name not in args.only:
                continue
            tiles.add(tile)
            for cfg in bias_grid(epilogue, tile, sched, cluster):  # each its own problem: the library's differs
                out = step.tune_configs(GemmSpec(m=m, n=n, k=k, epilogue=cfg.epilogue), [cfg], "sm_90a",
                                        lambda **_: None)
                [c] = out.candidates
                rows.append({"shape": name, "name": c["name"], "status": c["status"], "time_us": c.get("time_us"),
                             "library": out.baseline_library, "library_us": out.baseline_time_us})
                print(f"{name:20s} {c['name']:70s} {c['status']:10s} {c.get('time_us') or 0:7.2f} µs  "
                      f"library {out.baseline_time_us or 0:7.2f} µs", flush=True)
        if args.skinny:
            step.compiler.compile_all(list(dict.fromkeys(c.compiled for name, shape in SKINNY.items()
                                                         for c in skinny_grid(*shape)
                                                         if not args.only or name in args.only)), target_arch="sm_90a")
        for name, (m, n, k, epilogue) in ({} if args.ksweep or args.decode_ksweep or args.bias or args.stores or args.warp_stores or args.clusters or args.cluster_split or args.activation or args.l2_promotion or args.tall_swapped else DECODE if args.decode else KTILE if args.ktile
                                          else STREAMK if args.streamk else SKINNY if args.skinny else SHAPES).items():
            if args.only and name not in args.only:
                continue
            configs = (decode_grid() if args.decode else ktile_grid() if args.ktile
                       else streamk_grid(m, n, k, epilogue) if args.streamk
                       else skinny_grid(m, n, k, epilogue) if args.skinny else grid(epilogue))
            tiles |= {c.tile for c in configs}
            out = step.tune_configs(GemmSpec(m=m, n=n, k=k, epilogue=Epilogue(epilogue)), configs, "sm_90a", lambda **_: None)
            lib = out.baseline_time_us
            for c in sorted(out.candidates, key=lambda c: c.get("time_us") or float("inf")):
                rows.append({"shape": name, "name": c["name"], "status": c["status"], "time_us": c.get("time_us"),
                             "ratio_library_over_kiln": lib / c["time_us"] if lib and c.get("time_us") else None,
                             "library": out.baseline_library, "library_us": lib})
                print(f"{name:20s} {c['name']:70s} {c['status']:14s} {c.get('time_us') or 0:7.1f} µs  "
                      f"{(lib or 0) / (c.get('time_us') or 1):5.2f}×", flush=True)
    finally:
        step.close()
    payload = {**device_provenance(step.device()), "benchmark": "gemm_pairs", "tiles": [list(t) for t in sorted(tiles)],
               "rows": rows}
    print(json.dumps({"saved": str(save_result(payload, "gemm_pairs", step.device().gpu_name, args.out))}))


if __name__ == "__main__":
    main()
