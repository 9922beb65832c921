"""Launch-time twins timed for the first pass's leaders only (worker/selection.py leader_twins):
which configs get them, and a twin that wins the interleaved re-time is the stored winner, with
the launch contract it was timed under."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from service.specs import GemmSpec
from service.specs.epilogues import Epilogue
from service.specs.gemm import DType, Layout
from worker.gpu_step import GpuTuningStep
from worker.kernels.config import EpilogueSchedule, Family, KernelConfig, Schedule, TileScheduler
from worker.runtime.launch_meta import plan_entry
from worker.selection import leader_twins

SQUARE = KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.none, (64, 128, 128),
                      cluster=(1, 2), schedule=Schedule.pingpong, epilogue_schedule=EpilogueSchedule.tma,
                      tile_scheduler=TileScheduler.persistent)
SM80 = KernelConfig(Family.sm80_tensorop, DType.f16, Layout.row, Layout.col, Epilogue.none, (128, 128, 32),
                    warp=(64, 64, 32), stages=3)


def test_sm90_kernels_get_their_l2_promotion_twin_and_nothing_else_does() -> None:
    [twin] = leader_twins(SQUARE)
    assert twin == replace(SQUARE, l2_promotion=256) and twin.compiled == SQUARE.compiled
    assert leader_twins(twin) == [] and leader_twins(SM80) == []


def test_a_twin_that_wins_the_retime_is_the_winner_with_its_own_contract(tmp_path: Path) -> None:
    cubin = tmp_path / "k.cubin"
    cubin.write_bytes(b"cubin")
    [twin] = leader_twins(SQUARE)
    extra = {"compile_seconds": 1.0, "source_sha256": "x", "arch": "sm_90a"}
    candidates = [{**plan_entry(SQUARE, str(cubin)), **extra, "leader_twins": [{**plan_entry(twin, str(cubin)), **extra}]}]
    timing = {"status": "timed", "median_us": 9.6, "spread_us": 0.1}
    results = {"candidates": {SQUARE.name: {**timing, "median_us": 9.8}, twin.name: timing},
               "retimed": {SQUARE.name: {"median_us": 9.82, "spread_us": 0.1}, twin.name: {"median_us": 9.62, "spread_us": 0.1},
                           "library:cublas": {"median_us": 8.5, "spread_us": 0.1}},
               "library": {"cublas": {"median_us": 8.5}}, "best_library": "cublas"}
    out = GpuTuningStep.__new__(GpuTuningStep)._outcome(GemmSpec(m=1024, n=1024, k=1024), candidates, [], results)
    assert out.config is not None and KernelConfig.from_dict(out.config) == twin
    assert out.launch["tma_encode"]["l2_promotion"] == "L2_256B" and out.kernel_time_us == 9.62
    assert {r["name"] for r in out.candidates} == {SQUARE.name, twin.name}
