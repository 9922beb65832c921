"""On a GPU: verification rejects a wrong kernel, timing is stable, the tuning step finds a winner.

Run on the H200 with `python -m pytest tests/gpu -m gpu` (the device's python has torch).
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from service.specs import GemmSpec
from service.specs.epilogues import Epilogue
from service.specs.gemm import DType, Layout
from worker.kernels import streamk
from worker.kernels.compiler import Compiler
from worker.kernels.config import (
    ActivationMath,
    Decomposition,
    EpilogueSchedule,
    Family,
    KernelConfig,
    Schedule,
    TileScheduler,
)
from worker.runtime.launch_meta import plan_entry

pytestmark = pytest.mark.gpu

SM90_BIAS = KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.bias, (128, 128, 64),
                         schedule=Schedule.cooperative, epilogue_schedule=EpilogueSchedule.nosmem,
                         tile_scheduler=TileScheduler.persistent)
# Stream-K (cooperative, TMA epilogue) as CUTLASS's heuristic runs it, told to share tiles, and
# told to split K in two through its scheduler (one cubin: these are launch arguments).
STREAMK = replace(SM90_BIAS, tile=(128, 64, 64), epilogue_schedule=EpilogueSchedule.tma,
                  tile_scheduler=TileScheduler.streamk)
STREAMK_FORCED = replace(STREAMK, decomposition=Decomposition.streamk)
STREAMK_SPLIT = replace(STREAMK, split_k=2)
STREAMK_MEMSET = replace(STREAMK_FORCED, streamk_memset=True)  # CUTLASS's scheduler: a memset per launch
SM80_NONE = KernelConfig(Family.sm80_tensorop, DType.f16, Layout.row, Layout.col, Epilogue.none, (128, 128, 32),
                         warp=(64, 64, 32), stages=4, swizzle=4)


@pytest.fixture(scope="module")
def cubins(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    cache = Path(os.environ.get("KILN_DATA_DIR", tmp_path_factory.mktemp("kiln"))) / "compile-cache"
    configs = {"sm90_tma": SM90_BIAS, "sm80_tensorop": SM80_NONE, "streamk": STREAMK, "streamk_forced": STREAMK_FORCED,
               "streamk_split": STREAMK_SPLIT, "streamk_memset": STREAMK_MEMSET}
    outs = Compiler(cache, jobs=os.cpu_count()).compile_all(list(configs.values()), target_arch="sm_90a")
    entries = {}
    for key, o in zip(configs, outs, strict=True):
        assert o.ok, o.error
        path = tmp_path_factory.mktemp("cubins") / f"{o.config.variant_name}.cubin"
        path.write_bytes(o.cubin or b"")
        entries[key] = plan_entry(o.config, str(path))
    return entries


def _problem(epilogue: str, m: int = 1024, n: int = 1024, k: int = 1024):  # type: ignore[no-untyped-def]
    from worker import gpu_bench

    spec = {"m": m, "n": n, "k": k, "dtype": "f16", "layout_a": "row", "layout_b": "col", "alpha": 1.0, "beta": 0.0}
    parts = Epilogue(epilogue).parts
    act = parts.post_activation if parts.residual else parts.activation
    return gpu_bench.Problem(spec, {"bias": parts.bias, "residual": parts.residual, "activation": act.value})


def _candidate(entry: dict, prob):  # type: ignore[no-untyped-def]
    import torch

    from worker import gpu_bench

    scratch = torch.zeros(65536, dtype=torch.uint8, device="cuda")
    c = gpu_bench.Candidate(entry, prob, torch.cuda.get_device_properties(0).multi_processor_count,
                            torch.cuda.current_stream().cuda_stream, scratch.data_ptr())
    c._scratch = scratch  # keep it alive
    return c


def test_right_kernels_verify_and_a_wrong_one_is_rejected(cubins: dict[str, dict]) -> None:
    from worker import gpu_bench

    ok, reason, err = gpu_bench.verify(_candidate(cubins["sm90_tma"], _problem("bias")), _problem("bias"))
    assert ok, reason
    assert err < 1e-3
    ok, _, _ = gpu_bench.verify(_candidate(cubins["sm80_tensorop"], _problem("none")), _problem("none"))
    assert ok
    # The same bias kernel checked against a spec that asks for bias + ReLU computes the wrong function
    # (negative outputs survive): it must be rejected, with the reason.
    wrong = _problem("bias_relu")
    ok, reason, _ = gpu_bench.verify(_candidate(cubins["sm90_tma"], wrong), wrong)
    assert not ok and ("differ" in reason or "relative error" in reason)


def test_same_kernel_timed_twice_within_3_percent(cubins: dict[str, dict]) -> None:
    from worker import gpu_bench

    prob = _problem("none", 4096, 4096, 4096)
    c = _candidate(cubins["sm80_tensorop"], prob)
    sets = gpu_bench.rotating_sets(prob)
    fns = [gpu_bench._bind(c, o) for o in sets]
    gpu_bench.settle(fns)  # what every plan does before it times anything
    # Timed twice the way the tuner compares its leaders with the library (time_interleaved: under
    # the power cap a lone 100-launch median wanders by up to 10%): ten turns of 30 launches each.
    timed = gpu_bench.time_interleaved({"first": fns, "second": fns}, 30)
    first, second = timed["first"]["median_us"], timed["second"]["median_us"]
    assert abs(first - second) / min(first, second) < 0.03, (first, second)


# Each with problems its decomposition shares or splits (worker/kernels/streamk.py, checked against
# CUTLASS on the CPU): 64 tiles, which CUTLASS's heuristic shares itself; res5.1x1c as a GEMM (104
# tiles for 132 SMs) and 336 tiles (a 2.5-wave problem), which it would run data-parallel.
STREAMK_CASES = {"streamk": [(128, 4096, 4096)], "streamk_forced": [(1568, 512, 2048), (2048, 1344, 2048)],
                 "streamk_split": [(1568, 512, 2048)]}


@pytest.mark.parametrize("kind", sorted(STREAMK_CASES))
def test_streamk_leaves_its_barriers_zeroed(cubins: dict[str, dict], kind: str) -> None:
    """Kiln's stream-K scheduler zeroes each shared tile's flag once its last reader is done
    (templates/streamk_self_clearing.cuh.j2), so no launch needs a memset: after verification's
    launches (several input sets, no memset between them) the barriers read all zero, and with the
    partial tiles' bytes left as garbage every result stays exact, launch after launch."""
    import torch

    from worker import gpu_bench

    cfg = KernelConfig.from_dict(cubins[kind]["config"])
    assert cubins[kind]["launch"]["workspace_self_clearing"]
    for m, n, k in STREAMK_CASES[kind]:
        assert streamk.plan(cfg, m, n, k, 132).mode != "data_parallel"
        prob = _problem("bias", m, n, k)
        c = _candidate(cubins[kind], prob)
        ok, reason, _ = gpu_bench.verify(c, prob)
        assert ok, reason
        shape = {"m": m, "n": n, "k": k}
        prepared, workspace = c.prepared(shape), c.workspace_of(shape)
        assert prepared.self_clearing and workspace is not None and c.workspace is None  # its own, not shared
        assert 0 < prepared.workspace_clear < prepared.workspace_bytes
        torch.cuda.synchronize()
        barriers = workspace[prepared.workspace_clear:prepared.workspace_bytes]
        assert int(barriers.count_nonzero()) == 0, "a launch left a barrier flag set"
        workspace[:prepared.workspace_clear].fill_(0xFF)  # the partial tiles: NaN floats
        ok, reason, _ = gpu_bench.verify(c, prob)
        assert ok, f"with the partial tiles dirty: {reason}"
        torch.cuda.synchronize()
        assert int(barriers.count_nonzero()) == 0


def test_cutlass_streamk_zeroes_only_its_barriers(cubins: dict[str, dict]) -> None:
    """CUTLASS's own stream-K scheduler (KernelConfig.streamk_memset, the twin to measure against):
    the launcher zeroes only the part of its workspace the kernel reads before it writes (the
    barriers after the partial tiles, as CUTLASS's initialize_workspace does), so results stay
    exact with the whole workspace dirtied between launches."""
    import torch

    from worker import gpu_bench

    assert "workspace_self_clearing" not in cubins["streamk_memset"]["launch"]
    for m, n, k in STREAMK_CASES["streamk_forced"]:
        prob = _problem("bias", m, n, k)
        c = _candidate(cubins["streamk_memset"], prob)
        ok, reason, _ = gpu_bench.verify(c, prob)
        assert ok, reason
        prepared = c.prepared({"m": m, "n": n, "k": k})
        assert not prepared.self_clearing and 0 < prepared.workspace_clear < prepared.workspace_bytes
        assert c.workspace is not None
        c.workspace.fill_(0xFF)  # partials and barriers alike: NaN floats, barriers far from 0
        torch.cuda.synchronize()
        ok, reason, _ = gpu_bench.verify(c, prob)  # each shape's barriers zeroed, the partials not
        assert ok, f"with a dirty workspace: {reason}"


PADDED = replace(SM90_BIAS, epilogue_schedule=EpilogueSchedule.tma, pad_kn=8)  # N=777 zero-padded to 784
TUNED = [GemmSpec(m=2048, n=2048, k=1024, epilogue="bias_gelu"), GemmSpec(m=1024, n=1024, k=1024)]


def test_tuning_step_picks_a_verified_winner_and_states_the_baseline() -> None:
    from worker.gpu_step import GpuTuningStep

    events: list[dict] = []
    step = GpuTuningStep(0, limit=3, jobs=os.cpu_count())
    try:
        out = step.tune(TUNED[0], "sm_90a", lambda **kw: events.append(kw))
        assert out.kernels and out.kernel_time_us and out.baseline_time_us and out.baseline_library
        assert any(c["status"] == "timed" for c in out.candidates)
        assert events[-1]["timed"] >= 1 and events[0]["phase"] == "compiling"
        assert out.kernels[0].cubin[:4] == b"\x7fELF"
        # where the time went: the step's phases and, inside "measure", the GPU process's own
        phases = out.phase_seconds
        assert {"select", "compile", "measure", "measure.settle", "measure.load", "measure.verify",
                "measure.time", "measure.retime"} <= set(phases)
        inside = [v for k, v in phases.items() if k.startswith("measure.") and k != "measure.previous_cleanup"]
        assert sum(inside) <= phases["measure"]
        first_pid = step.measurer.pid
        again = step.tune(TUNED[1], "sm_90a", lambda **kw: None)  # a second job, same measurement process
        assert again.kernels and again.kernel_time_us and step.measurer.pid == first_pid
    finally:
        step.close()


def test_padded_gemm_verifies_and_launches_from_unpadded_tensors(tmp_path: Path) -> None:
    """BOLT's padding: N=777 zero-padded to 784 runs an 8-wide TMA kernel; the worker verifies it
    on padded operands, and KilnGemm pads a client's unpadded tensors itself."""
    import torch

    from worker import gpu_bench
    from worker.runtime.torch_gemm import KilnGemm

    cfg = PADDED
    [o] = Compiler(Path(os.environ.get("KILN_DATA_DIR", tmp_path)) / "compile-cache",
                   jobs=os.cpu_count()).compile_all([cfg], target_arch="sm_90a")
    assert o.ok, o.error
    path = tmp_path / "padded.cubin"
    path.write_bytes(o.cubin or b"")
    entry = plan_entry(cfg, str(path))
    meta = entry["launch"]
    prob = _problem("bias", 1024, 777, 512)
    ok, reason, _ = gpu_bench.verify(_candidate(entry, prob), prob)
    assert ok, reason
    kernel = KilnGemm(o.cubin or b"", meta, {"op": "gemm", "dtype": "f16", "epilogue": "bias"})
    x = torch.randn(300, 509, device="cuda", dtype=torch.half)
    w = torch.randn(777, 509, device="cuda", dtype=torch.half)
    b = torch.randn(777, device="cuda", dtype=torch.half)
    y = kernel(x, w, b)
    ref = x.float() @ w.float().t() + b.float()
    assert y.shape == (300, 777) and float((y.float() - ref).norm() / ref.norm()) < 2e-3


# Per-warp TMA stores (templates/warp_store_epilogue.cuh.j2): each consumer warp stores its own rows
# with no CTA-wide barrier per subtile. The configs are suite winners (bench/gemm_pairs.py
# warp_store_pairs: the same cubins), checked where a broken row ownership or a missing wait would
# show: tails in M and N, many tiles per CTA, and a staged row bias at K = 128, where a warp that
# runs ahead reaches the next tile's bias staging while slower warps still read the last one.
def _warp_stores(epilogue: Epilogue, tile: tuple[int, int, int], schedule: Schedule) -> KernelConfig:
    return KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, epilogue, tile, cluster=(1, 2),
                        schedule=schedule, epilogue_schedule=EpilogueSchedule.tma,
                        tile_scheduler=TileScheduler.persistent, warp_stores=True)


WARP_STORES = {
    "pingpong_none": (_warp_stores(Epilogue.none, (128, 128, 64), Schedule.pingpong), [(1000, 776, 1032), (4096, 2304, 768)]),
    "pingpong_bias_gelu": (_warp_stores(Epilogue.bias_gelu, (128, 128, 64), Schedule.pingpong), [(1000, 776, 1032)]),
    "cooperative_bias": (_warp_stores(Epilogue.bias, (256, 128, 64), Schedule.cooperative),
                         [(25088, 512, 128), (1000, 776, 1032)]),
    # the single-consumer kernel (one tile per CTA): bert-base.attn_out's tile and grid, and a tail
    "single_none": (replace(_warp_stores(Epilogue.none, (128, 192, 64), Schedule.single),
                            tile_scheduler=TileScheduler.none), [(4096, 768, 768), (1000, 776, 1032)]),
    "single_bias_gelu": (replace(_warp_stores(Epilogue.bias_gelu, (64, 128, 64), Schedule.single),
                                 tile_scheduler=TileScheduler.none), [(1024, 1024, 1024), (1000, 776, 1032)]),
}


def _compiled_entry(cfg: KernelConfig, tmp_path: Path) -> dict:
    """One config compiled (through $KILN_DATA_DIR's cache when set) and its measurement entry."""
    cache = Path(os.environ.get("KILN_DATA_DIR", tmp_path)) / "compile-cache"
    [o] = Compiler(cache, jobs=os.cpu_count()).compile_all([cfg], target_arch="sm_90a")
    assert o.ok, o.error
    path = tmp_path / f"{cfg.variant_name}.cubin"
    path.write_bytes(o.cubin or b"")
    return plan_entry(cfg, str(path))


def _verifies_on(cfg: KernelConfig, shapes: list[tuple[int, int, int]], tmp_path: Path) -> None:
    """The config compiled once, verified (the worker's own check) on each M, N, K."""
    from worker import gpu_bench

    entry = _compiled_entry(cfg, tmp_path)
    for m, n, k in shapes:
        prob = _problem(cfg.epilogue.value, m, n, k)
        ok, reason, err = gpu_bench.verify(_candidate(entry, prob), prob)
        assert ok, (m, n, k, reason)
        assert err < 2e-3


@pytest.mark.parametrize("kind", sorted(WARP_STORES))
def test_per_warp_store_kernels_verify(kind: str, tmp_path: Path) -> None:
    _verifies_on(*WARP_STORES[kind], tmp_path)


# Per-warp stores on a swapped kernel (column-major D in the kernel's frame: each warp's slice is
# Kiln's own 32-byte-swizzled block, not a slice of CUTLASS's buffer), with and without an epilogue,
# on tails in both dimensions and on bert-base.ffn1's grid.
@pytest.mark.parametrize("epilogue", ["bias_gelu", "bias", "silu", "none"])
def test_swapped_per_warp_store_kernels_verify(epilogue: str, tmp_path: Path) -> None:
    cfg = replace(TALL_SWAPPED, cluster=(2, 1), warp_stores=True, epilogue=Epilogue(epilogue))
    _verifies_on(cfg, [(1000, 776, 1032), (4096, 3072, 768)], tmp_path)


# Four-CTA clusters (bench/gemm_pairs.py BIG_CLUSTERS): each multicast splits a TMA box over more
# CTAs (templates/tma_describe.cuh.j2), and the persistent grid comes from the driver's count of
# co-resident clusters (render.queries_cluster_occupancy), checked on a one-wave grid (square 1024
# on 128x64 tiles: 128 tiles, all resident at once iff the GPU holds 32 such clusters) and on tails.
def _big_cluster(tile: tuple[int, int, int], schedule: Schedule, cluster: tuple[int, int],
                 epilogue: Epilogue = Epilogue.none) -> KernelConfig:
    return KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, epilogue, tile, cluster=cluster,
                        schedule=schedule, epilogue_schedule=EpilogueSchedule.tma,
                        tile_scheduler=TileScheduler.persistent)


BIG_CLUSTER_KERNELS = {
    "cooperative_2x2": _big_cluster((128, 64, 64), Schedule.cooperative, (2, 2)),
    "pingpong_4x1_bias_gelu": _big_cluster((64, 128, 128), Schedule.pingpong, (4, 1), Epilogue.bias_gelu),
    "pingpong_1x4": _big_cluster((64, 128, 128), Schedule.pingpong, (1, 4)),
}


def _verified_launch(cfg: KernelConfig, entry: dict, m: int, n: int, k: int) -> tuple[Any, Any]:
    """The worker's own check on one M, N, K, then the launch it would make there."""
    from worker import gpu_bench

    prob = _problem(cfg.epilogue.value, m, n, k)
    c = _candidate(entry, prob)
    ok, reason, err = gpu_bench.verify(c, prob)
    assert ok, (m, n, k, reason)
    assert err < 2e-3
    return c, c.prepared(prob.launch_shape(prob.make(prob.full_shape, "rand"), entry["config"]))


def _cluster_tiles(cfg: KernelConfig, rows: int, cols: int) -> int:
    """Tiles of a rows x cols grid (the kernel's frame): CUTLASS rounds each side up to whole clusters."""
    cm, cn = cfg.cluster
    return -(-rows // cfg.tile[0] // cm) * cm * (-(-cols // cfg.tile[1] // cn) * cn)


@pytest.mark.parametrize("kind", sorted(BIG_CLUSTER_KERNELS))
def test_four_cta_cluster_kernels_verify_and_fill_the_gpu_with_resident_clusters(kind: str, tmp_path: Path) -> None:

    cfg = BIG_CLUSTER_KERNELS[kind]
    entry = _compiled_entry(cfg, tmp_path)
    for m, n, k in [(1024, 1024, 1024), (1000, 776, 1032), (4096, 2304, 768)]:
        c, prepared = _verified_launch(cfg, entry, m, n, k)
        size = cfg.cluster[0] * cfg.cluster[1]
        resident = c.kernel.max_active_clusters(cfg.cluster, prepared.threads, prepared.smem)
        tiles = _cluster_tiles(cfg, m, n)
        ctas = prepared.grid[0] * prepared.grid[1] * prepared.grid[2]
        assert prepared.cluster == cfg.cluster and ctas % size == 0
        assert ctas == min(resident * size, tiles), (m, n, k, prepared.grid, resident)


# cuBLAS's decode clusters in Kiln's frames (space.SWAPPED_DECODE_CLUSTERS, DECODE_96_WIDE_CLUSTERS):
# a swapped pair along the tokens that multicasts the weight tile (decode.m128) and the plain
# 96-wide tile under 1x4, whose 115 tiles on decode.m64 make 116 CTAs of the 120 the H200 holds in
# four-CTA clusters; each on its decode shape and on tails in every dimension (a token count that
# leaves the pair's second tile partial, an N that leaves a cluster's last CTAs without a tile).
DECODE_CLUSTERS = {
    "swapped_64x64_1x2_token_pair": (replace(_big_cluster((64, 64, 64), Schedule.pingpong, (1, 2)), swap_ab=True),
                                     [(128, 4096, 11008), (100, 776, 1032)]),
    "plain_64x96_1x4_bias": (_big_cluster((64, 96, 128), Schedule.pingpong, (1, 4), Epilogue.bias),
                             [(64, 11008, 4096), (50, 1000, 1032)]),
}


@pytest.mark.parametrize("kind", sorted(DECODE_CLUSTERS))
def test_decode_cluster_kernels_verify(kind: str, tmp_path: Path) -> None:
    _verifies_on(*DECODE_CLUSTERS[kind], tmp_path)


# The single-consumer kernel (Schedule.single: CUTLASS's non-persistent KernelTmaWarpSpecialized, one
# tile per CTA, no tile scheduler), in every frame the search offers it: plain, swapped, the no-smem
# and TMA epilogues, 2- and 4-CTA clusters, a 128-row tile in one warpgroup (192 accumulators) with
# bias + GELU. Each on its suite shape, on tails in every dimension, and (where the search never
# takes it, but a client may ask for it) on a grid of several rounds; its grid is its tiles.
def _single(tile: tuple[int, int, int], cluster: tuple[int, int], epilogue: Epilogue = Epilogue.none,
            swap_ab: bool = False, epilogue_schedule: EpilogueSchedule = EpilogueSchedule.tma) -> KernelConfig:
    return KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, epilogue, tile, cluster=cluster,
                        schedule=Schedule.single, epilogue_schedule=epilogue_schedule,
                        tile_scheduler=TileScheduler.none, swap_ab=swap_ab)


SINGLE = {
    "plain_64x128_1x2": (_single((64, 128, 128), (1, 2)), [(1024, 1024, 1024), (1000, 776, 1032), (4096, 2304, 768)]),
    "plain_128x192_1x2_bias_gelu": (_single((128, 192, 64), (1, 2), Epilogue.bias_gelu),
                                    [(4096, 768, 768), (1000, 776, 1032)]),
    "swapped_64x16_4x1_nosmem_bias": (_single((64, 16, 128), (4, 1), Epilogue.bias, True, EpilogueSchedule.nosmem),
                                      [(16, 4096, 4096), (13, 1000, 1032)]),
    "swapped_64x64_1x2_token_pair": (_single((64, 64, 64), (1, 2), swap_ab=True), [(128, 4096, 11008), (100, 776, 1032)]),
    "plain_64x96_1x4": (_single((64, 96, 128), (1, 4)), [(64, 11008, 4096), (50, 1000, 1032)]),
    # An odd number of 8-row groups (88 = 11 x 8: 126 tiles on decode.m64 where 96 makes 115): an
    # extended wgmma width and B's K atoms side by side (render.py: k_first_b_atoms), under the TMA
    # epilogue's 64x8 subtiles with per-warp stores and under the register epilogue with a bias.
    # B arrives in one four-dimensional TMA box a stage (one_box_b_mainloop.cuh.j2), whose view of B
    # holds whole 8-row groups and 64-wide K atoms: K = 1088 ends in a partial k-tile of whole atoms.
    "plain_64x88_1x2_odd_width": (replace(_single((64, 88, 128), (1, 2)), warp_stores=True),
                                  [(64, 11008, 4096), (50, 1000, 1088)]),
    "plain_64x88_1x1_odd_width_nosmem_bias": (_single((64, 88, 128), (1, 1), Epilogue.bias,
                                                      epilogue_schedule=EpilogueSchedule.nosmem),
                                              [(64, 11008, 4096), (50, 1000, 1088)]),
}


@pytest.mark.parametrize("kind", sorted(SINGLE))
def test_single_consumer_kernels_verify_with_a_cta_per_tile(kind: str, tmp_path: Path) -> None:
    cfg, shapes = SINGLE[kind]
    entry = _compiled_entry(cfg, tmp_path)
    for m, n, k in shapes:
        _, prepared = _verified_launch(cfg, entry, m, n, k)
        tiles = _cluster_tiles(cfg, *((n, m) if cfg.swap_ab else (m, n)))  # the kernel's frame
        assert prepared.grid[0] * prepared.grid[1] * prepared.grid[2] == tiles, (m, n, k, prepared.grid)
        assert prepared.threads == 256 and prepared.cluster == cfg.cluster


def test_an_odd_width_kernel_refuses_a_k_that_its_b_view_cannot_hold(tmp_path: Path) -> None:
    """K = 1032 ends in a partial 64-wide atom, which the boxed view of B would fill from the next
    row: the cubin's params builder refuses the problem and the launcher says so (prune drops such
    configs before they compile: prune.odd_width_b_divides)."""
    from worker.runtime.launcher import CudaError

    cfg, _ = SINGLE["plain_64x88_1x2_odd_width"]
    entry = _compiled_entry(cfg, tmp_path)
    prob = _problem("none", 50, 1000, 1032)
    c = _candidate(entry, prob)
    with pytest.raises(CudaError, match="refused"):
        c.prepared(prob.launch_shape(prob.make(prob.full_shape, "rand"), entry["config"]))


# Kiln's phase clock (KernelConfig.phase_clock, bench/phase_clock.py): the clocked kernel still
# verifies, every CTA of the grid stamps its five edges in order, and the consumers' mainloops add
# up to the grid's tiles (twice over for the cooperative schedule's two warpgroups).
PHASE_CLOCKED = {
    "cooperative_256x128_1x2": (replace(SM90_BIAS, epilogue=Epilogue.none, tile=(256, 128, 64), cluster=(1, 2),
                                        epilogue_schedule=EpilogueSchedule.tma, phase_clock=True), 2),
    "single_64x128": (replace(_single((64, 128, 64), (1, 1)), phase_clock=True), 1),
}


@pytest.mark.parametrize("kind", sorted(PHASE_CLOCKED))
def test_the_phase_clock_stamps_every_cta_in_order(kind: str, tmp_path: Path) -> None:
    from bench.phase_clock import clock_launches
    from worker import gpu_bench

    cfg, per_tile = PHASE_CLOCKED[kind]
    entry = _compiled_entry(cfg, tmp_path)
    for m, n, k in [(1024, 1024, 1024), (2048, 4096, 1032)]:
        c, prepared = _verified_launch(cfg, entry, m, n, k)
        for p in clock_launches(c, gpu_bench.rotating_sets(c.problem)[:2], launches=3):
            assert p["ctas"] == prepared.grid[0] * prepared.grid[1] * prepared.grid[2], (m, n, k, p)
            assert p["mainloops"] == per_tile * _cluster_tiles(cfg, m, n), (m, n, k, p)
            assert 0 <= p["to_mainloop_us"] <= p["to_first_data_us"] < p["span_us"], p
            assert 0 <= p["to_load_init_us"] <= p["to_first_load_us"] <= p["to_first_data_us"], p
            assert 0 < p["data_wait_share"] < 1, p
            assert p["mainloop_us"] > 0 and p["tail_us"] > 0 and p["last_mainloop_done_us"] < p["span_us"], p


# Cluster split-K (templates/cluster_splitk_kernel.cuh.j2): K split over a cluster's CTAs, the
# partials summed through distributed shared memory by the first CTA. Checked at every slice count
# a launch may ask (1, 2, 4, 8), on decode shapes with swapped operands, on a one-wave square GEMM
# with two consumer warpgroups, and where K's tiles do not divide (1032 = 9 tiles of 128, so 4
# slices run as 3; 17 tiles of 64 run unsplit): the builder must shrink the cluster, never drop K.
def _cluster_split(tile: tuple[int, int, int], schedule: Schedule, epilogue: Epilogue = Epilogue.none,
                   swap_ab: bool = True, epilogue_schedule: EpilogueSchedule = EpilogueSchedule.nosmem) -> KernelConfig:
    return KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, epilogue, tile, schedule=schedule,
                        epilogue_schedule=epilogue_schedule, tile_scheduler=TileScheduler.none,
                        split_k_mode="cluster", split_k=2, swap_ab=swap_ab)


CLUSTER_SPLIT = {
    "pingpong_64x32_swapped": (_cluster_split((64, 32, 128), Schedule.pingpong),
                               [(16, 4096, 4096), (5, 1000, 1032), (100, 776, 1032)]),
    "pingpong_64x16_swapped_bias_gelu": (_cluster_split((64, 16, 128), Schedule.pingpong, Epilogue.bias_gelu),
                                         [(16, 4096, 4096), (9, 1000, 1032)]),
    "cooperative_128x64_swapped_bias": (_cluster_split((128, 64, 128), Schedule.cooperative, Epilogue.bias),
                                        [(128, 4096, 11008), (100, 776, 1032)]),
    "cooperative_128x128_plain": (_cluster_split((128, 128, 64), Schedule.cooperative, swap_ab=False),
                                  [(1024, 1024, 1024), (1000, 776, 1032)]),
    # the TMA epilogue: the leader's producer warp loads the residual, the epilogue's shared memory
    # reuses the drained mainloop buffers
    "cooperative_128x128_tma_bias_gelu": (_cluster_split((128, 128, 64), Schedule.cooperative, Epilogue.bias_gelu,
                                                         False, EpilogueSchedule.tma),
                                          [(1024, 1024, 1024), (1000, 776, 1032)]),
    "pingpong_64x128_tma_residual": (_cluster_split((64, 128, 128), Schedule.pingpong, Epilogue.bias_residual_add,
                                                    False, EpilogueSchedule.tma),
                                     [(1024, 1024, 1024), (1000, 776, 1032)]),
    # interleaved slices (slice r takes K tiles r, r + S, ...): decode.m128's swapped 64x128 and a K
    # whose last tile is partial, so the tail tile lands on whichever slice owns it
    "pingpong_64x128_swapped_interleaved": (replace(_cluster_split((64, 128, 64), Schedule.pingpong),
                                                    split_k_interleave=True),
                                            [(128, 4096, 11008), (100, 776, 1032)]),
}


@pytest.mark.parametrize("kind", sorted(CLUSTER_SPLIT))
def test_cluster_split_kernels_verify_at_every_slice_count(kind: str, tmp_path: Path) -> None:
    from worker import gpu_bench

    base, shapes = CLUSTER_SPLIT[kind]
    entry = _compiled_entry(base, tmp_path)
    for slices in (1, 2, 4, 8):
        cfg = replace(base, split_k=slices)
        config = plan_entry(cfg, entry["cubin_path"])  # the same cubin: the slice count is a launch argument
        for m, n, k in shapes:
            prob = _problem(cfg.epilogue.value, m, n, k)
            c = _candidate(config, prob)
            ok, reason, err = gpu_bench.verify(c, prob)
            assert ok, (slices, m, n, k, reason)
            assert err < 2e-3
            prepared = c.prepared(prob.launch_shape(prob.make(prob.full_shape, "rand"), config["config"]))
            rows, cols = (n, m) if cfg.swap_ab else (m, n)  # the kernel's frame
            k_tiles = -(-k // cfg.tile[2])
            want = max(s for s in range(1, slices + 1) if k_tiles % s == 0)
            assert prepared.cluster == (want, 1), (slices, m, n, k)
            assert prepared.grid == (want, -(-rows // cfg.tile[0]), -(-cols // cfg.tile[1])), (slices, m, n, k)


# The consumer loop unrolled over the stages (KernelConfig.lean_consumer,
# templates/lean_consumer_mainloop.cuh.j2): a runtime-stage loop until the read stage wraps, whole
# rounds with the stage a constant, then the remainder. Each suite winner's schedule (cooperative
# 256x128 1x2, swapped ping-pong 128x192 2x1, single-consumer 128x64) on K tails that land the
# remainder loop on every stage (1032 = 16 tiles and a partial one; 200 = four tiles, fewer than one
# round) and on the suite shape itself, where persistent CTAs start each tile at a different stage.
LEAN_CONSUMER = {
    "cooperative_256x128_1x2": (replace(SM90_BIAS, epilogue=Epilogue.none, tile=(256, 128, 64), cluster=(1, 2),
                                        epilogue_schedule=EpilogueSchedule.tma, lean_consumer=True),
                                [(2048, 4096, 4096), (1000, 776, 1032), (300, 520, 200)]),
    "pingpong_128x192_2x1_swapped": (KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.none,
                                                  (128, 192, 64), cluster=(2, 1), schedule=Schedule.pingpong,
                                                  epilogue_schedule=EpilogueSchedule.tma,
                                                  tile_scheduler=TileScheduler.persistent, swap_ab=True,
                                                  lean_consumer=True),
                                     [(2048, 12288, 4096), (1000, 776, 1032), (300, 520, 200)]),
    "single_128x64": (replace(_single((128, 64, 64), (1, 1)), warp_stores=True, lean_consumer=True),
                      [(1024, 1024, 1024), (1000, 776, 1032), (300, 520, 200)]),
}


@pytest.mark.parametrize("kind", sorted(LEAN_CONSUMER))
def test_lean_consumer_kernels_verify(kind: str, tmp_path: Path) -> None:
    _verifies_on(*LEAN_CONSUMER[kind], tmp_path)


# The cooperative kernel with its two consumer warpgroups side by side along N
# (KernelConfig.wg_split_n): nvjet's 192- and 320-row "coopB" tiles, each subtile one 64-row atom by
# the whole N. The cubins session 42 run A times (scripts/device/session42_a.py): on tails in M, N
# and K (the last 192-row tile a third full), with a bias along N, bias + GELU and SiLU, one subtile
# store in flight, 192-wide tiles (their subtiles in 32-column atoms), 192x256 (64x128 atoms), and on
# suite shapes.
def _split_n(tile: tuple[int, int, int], cluster: tuple[int, int], epilogue: Epilogue = Epilogue.none,
             store_stages: int = 0) -> KernelConfig:
    return KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, epilogue, tile, cluster=cluster,
                        schedule=Schedule.cooperative, epilogue_schedule=EpilogueSchedule.tma,
                        tile_scheduler=TileScheduler.persistent, epilogue_store_stages=store_stages, wg_split_n=True)


SPLIT_N = {
    "192x128_1x2": (_split_n((192, 128, 64), (1, 2)), [(4096, 768, 768), (1000, 776, 1032), (300, 520, 200)]),
    "192x128_2x1_bias": (_split_n((192, 128, 64), (2, 1), Epilogue.bias), [(4096, 768, 3072), (1000, 776, 1032)]),
    "192x128_1x2_bias_gelu": (_split_n((192, 128, 64), (1, 2), Epilogue.bias_gelu), [(4096, 3072, 768),
                                                                                   (1000, 776, 1032)]),
    "192x128_1x2_one_store": (_split_n((192, 128, 64), (1, 2), Epilogue.none, 1), [(1000, 776, 1032), (300, 520, 200)]),
    "320x128_1x2": (_split_n((320, 128, 64), (1, 2)), [(1000, 776, 1032), (300, 520, 200)]),
    "192x192_2x1_silu_one_store": (_split_n((192, 192, 64), (2, 1), Epilogue.silu, 1),
                                   [(2048, 11008, 4096), (1000, 776, 1032)]),
    # 64x128 atoms, three a warpgroup (192 accumulators a thread): session 44's runs
    "192x256_1x2_bias_gelu_one_store": (_split_n((192, 256, 64), (1, 2), Epilogue.bias_gelu, 1),
                                        [(4096, 3072, 768), (1000, 776, 1032)]),
    "192x256_2x1_one_store": (_split_n((192, 256, 64), (2, 1), Epilogue.none, 1), [(1000, 776, 1032), (300, 520, 200)]),
}


@pytest.mark.parametrize("kind", sorted(SPLIT_N))
def test_split_n_warpgroup_kernels_verify(kind: str, tmp_path: Path) -> None:
    _verifies_on(*SPLIT_N[kind], tmp_path)


# Kiln's activation functors (templates/kiln_activation.cuh.j2): SiLU, sigmoid and GELU through one
# tanh.approx each, in FP32 ("tanh") or on fp16 pairs in the TMA epilogue ("packed"), and in the
# no-smem epilogue (FP32 whatever the math). The fused suite winner's kernel (bench/gemm_pairs.py
# activation_problems: the same cubins), on tails in M, N and K and on the suite shape itself.
FFN1 = KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.bias_gelu, (128, 128, 64),
                    cluster=(1, 2), schedule=Schedule.pingpong, epilogue_schedule=EpilogueSchedule.tma,
                    tile_scheduler=TileScheduler.persistent)
ACTIVATION_MATH = {
    "bias_gelu_packed": (replace(FFN1, activation_math=ActivationMath.packed), [(1000, 776, 1032), (4096, 3072, 768)]),
    "bias_gelu_tanh": (replace(FFN1, activation_math=ActivationMath.tanh), [(1000, 776, 1032)]),
    "gelu_packed": (replace(FFN1, epilogue=Epilogue.gelu, activation_math=ActivationMath.packed), [(1000, 776, 1032)]),
    "silu": (replace(FFN1, epilogue=Epilogue.silu), [(1000, 776, 1032)]),  # the default: FP32 tanh form
    "bias_sigmoid": (replace(FFN1, epilogue=Epilogue.bias_sigmoid), [(1000, 776, 1032)]),
    "nosmem_bias_silu_tanh": (replace(SM90_BIAS, epilogue=Epilogue.bias_silu, activation_math=ActivationMath.tanh),
                              [(1000, 776, 1032)]),
}


@pytest.mark.parametrize("kind", sorted(ACTIVATION_MATH))
def test_kiln_activation_kernels_verify(kind: str, tmp_path: Path) -> None:
    _verifies_on(*ACTIVATION_MATH[kind], tmp_path)


# The swapped 128x192 ping-pong tile for mid-size GEMMs (worker/kernels/space.py
# sm90_tall_swapped_configs: cuBLAS's 192-row tiling, 192 accumulators a thread): tails in M, N and
# K, with a fused bias (along the kernel's rows) + GELU, and bert-base.qkv itself.
TALL_SWAPPED = replace(FFN1, tile=(128, 192, 64), swap_ab=True)
# Per-warp stores on the swapped single-consumer kernel: bert-base.ffn2's winner (2x1, bias).
SWAPPED_SINGLE_WARP_STORES = replace(TALL_SWAPPED, epilogue=Epilogue.bias, cluster=(2, 1), schedule=Schedule.single,
                                     tile_scheduler=TileScheduler.none, warp_stores=True)


def test_swapped_single_consumer_per_warp_store_kernel_verifies(tmp_path: Path) -> None:
    _verifies_on(SWAPPED_SINGLE_WARP_STORES, [(4096, 768, 3072), (1000, 776, 1032)], tmp_path)


@pytest.mark.parametrize("epilogue", ["bias_gelu", "none"])
def test_tall_swapped_kernels_verify(epilogue: str, tmp_path: Path) -> None:
    shapes = [(1000, 776, 1032)] + ([(4096, 2304, 768)] if epilogue == "none" else [])
    _verifies_on(replace(TALL_SWAPPED, epilogue=Epilogue(epilogue)), shapes, tmp_path)


# The TMA descriptors' L2 promotion (KernelConfig.l2_promotion) is a launch-time field: one cubin,
# its tiled descriptors encoded on the host with each size; every one must give the same answers.
@pytest.mark.parametrize("size", [0, 64, 256])
def test_each_l2_promotion_verifies(size: int, tmp_path: Path) -> None:
    _verifies_on(replace(FFN1, l2_promotion=size), [(1000, 776, 1032)], tmp_path)


# The weight's L2 prefetch (KernelConfig.l2_prefetch, templates/l2_prefetch_mainloop.cuh.j2): the
# producer's extra TMA prefetches must leave every result as it was, on the decode winners' frames
# (swapped with the weight multicast along the tokens, swapped with the activations multicast,
# plain under 1x4) and on a persistent cooperative kernel that restarts its prefetch each tile;
# K tails (1032 = 16 tiles of 64 and a partial one) put prefetches past the last k-tile's reach.
L2_PREFETCH = {
    "swapped_64x64_1x2_pf16": (replace(_single((64, 64, 64), (1, 2), swap_ab=True), l2_prefetch=16),
                               [(128, 4096, 11008), (100, 776, 1032)]),
    "swapped_64x16_4x1_nosmem_bias_pf8": (replace(_single((64, 16, 128), (4, 1), Epilogue.bias, True,
                                                          EpilogueSchedule.nosmem), l2_prefetch=8),
                                          [(16, 4096, 4096), (13, 1000, 1032)]),
    "plain_64x96_1x4_pf32": (replace(_single((64, 96, 128), (1, 4)), l2_prefetch=32),
                             [(64, 11008, 4096), (50, 1000, 1032)]),
    "cooperative_256x128_1x2_pf4": (replace(SM90_BIAS, epilogue=Epilogue.none, tile=(256, 128, 64), cluster=(1, 2),
                                            epilogue_schedule=EpilogueSchedule.tma, l2_prefetch=4),
                                    [(2048, 4096, 4096), (1000, 776, 1032)]),
}


@pytest.mark.parametrize("kind", sorted(L2_PREFETCH))
def test_l2_prefetching_kernels_verify(kind: str, tmp_path: Path) -> None:
    _verifies_on(*L2_PREFETCH[kind], tmp_path)
