"""Stream-K's workspace: partial-accumulator tiles, then barriers. Only the barriers must be zero
when a launch starts (CUTLASS's initialize_workspace clears only them); the builder reports where
they start and the launcher clears from there. (On the GPU: tests/gpu/test_gpu_tuning.py runs
stream-K kernels with the whole workspace dirtied between launches.)"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from service.specs.epilogues import Epilogue
from service.specs.gemm import DType, Layout
from worker.kernels import streamk
from worker.kernels.config import (
    Decomposition,
    EpilogueSchedule,
    Family,
    KernelConfig,
    Raster,
    Schedule,
    TileScheduler,
)
from worker.kernels.nvrtc import include_dirs
from worker.kernels.render import UnsupportedConfig, _env, render
from worker.runtime import driver_launch, launcher
from worker.runtime.launch_meta import META_FIELDS, launch_meta

STREAM_K = KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.bias_relu, (128, 64, 64),
                        schedule=Schedule.cooperative, epilogue_schedule=EpilogueSchedule.tma,
                        tile_scheduler=TileScheduler.streamk)
PERSISTENT = replace(STREAM_K, tile_scheduler=TileScheduler.persistent)


MEMSET_TWIN = replace(STREAM_K, streamk_memset=True)


def test_only_stream_k_builders_report_where_the_zeroed_part_starts() -> None:
    assert "kMetaWorkspaceClear] =" in render(STREAM_K) and "kiln_streamk_barrier_offset(" in render(STREAM_K)
    assert "kMetaWorkspaceClear] =" not in render(PERSISTENT)  # 0: the whole workspace, as before
    assert META_FIELDS["workspace_clear"] == 15 and "meta[workspace_clear]" in launch_meta(STREAM_K)["workspace"]


def test_stream_k_kernels_leave_their_barriers_zeroed_unless_asked_for_cutlasss_scheduler() -> None:
    """Kiln's scheduler (the last reader of a tile's flag zeroes it) is every stream-K kernel's;
    its contract tells clients to skip the memset and keep a workspace per shape. The
    streamk_memset twin renders CUTLASS's scheduler and keeps the memset."""
    source = render(STREAM_K)
    assert "CollectiveMainloop, CollectiveEpilogue, kiln::SelfClearingStreamK>;" in source
    assert "struct SelfClearingStreamKScheduler" in source and "flags[Base::output_tile_index(" in source
    contract = launch_meta(STREAM_K)
    assert contract["workspace_self_clearing"] is True and "zero it once" in contract["workspace_self_clearing_rule"]
    twin = render(MEMSET_TWIN)
    assert "CollectiveEpilogue, cutlass::gemm::StreamKScheduler>;" in twin and "SelfClearingStreamK" not in twin
    assert "workspace_self_clearing" not in launch_meta(MEMSET_TWIN)
    assert MEMSET_TWIN.variant_name == STREAM_K.variant_name.replace("_streamk_", "_streamk_zm_")
    for cfg in (PERSISTENT, replace(PERSISTENT, tile_scheduler=TileScheduler.none, schedule=Schedule.single)):
        assert "SelfClearing" not in render(cfg) and "workspace_self_clearing" not in launch_meta(cfg)
        with pytest.raises(UnsupportedConfig, match="streamk_memset"):
            render(replace(cfg, streamk_memset=True))


@pytest.mark.parametrize(("clear", "self_clearing", "expected"),
                         [(3072, False, [(0x1000 + 3072, 1024)]), (0, False, [(0x1000, 4096)]), (3072, True, [])])
def test_the_launcher_zeroes_the_workspace_from_the_reported_offset(monkeypatch: pytest.MonkeyPatch, clear: int,
                                                                   self_clearing: bool,
                                                                   expected: list[tuple[int, int]]) -> None:
    """And not at all where the kernel leaves it zeroed."""
    memsets: list[tuple[int, int]] = []

    def memset(ptr: int, value: int, size: int, stream: int) -> tuple[Any]:
        memsets.append((ptr, size))
        return (launcher.cu.CUresult.CUDA_SUCCESS,)

    monkeypatch.setattr(launcher.cu, "cuMemsetD8Async", memset)
    monkeypatch.setattr(launcher.cu, "cuLaunchKernelEx", lambda *a: (0,))
    monkeypatch.setattr(driver_launch, "ENABLED", False)
    kernel = launcher.LoadedKernel.__new__(launcher.LoadedKernel)
    kernel.launch, kernel.dependent_launch, kernel.entry = {"cluster_launch": True}, False, None
    prepared = launcher.PreparedLaunch(params=b"", slots={}, grid=(132, 1, 1), threads=384, smem=1024, cluster=(1, 1),
                                       workspace_bytes=4096, workspace_clear=clear, self_clearing=self_clearing)
    kernel.launch_args(prepared, SimpleNamespace(address=0), stream=0, workspace=0x1000)  # type: ignore[arg-type]
    assert memsets == expected


@pytest.fixture(scope="module")
def cutlass_rows(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """tests/worker/streamk_offsets.cpp, compiled for the host with CUTLASS's own headers and Kiln's
    templates/streamk_workspace.cuh.j2, run: one row per (problem, tile, cluster, split count,
    raster, swizzle, decomposition) with what CUTLASS's scheduler chose and its workspace ranges."""
    if shutil.which("g++") is None:
        pytest.skip("needs a host C++ compiler")
    tmp = tmp_path_factory.mktemp("streamk")
    (tmp / "streamk_workspace.h").write_text("#pragma once\n" + _env().get_template("streamk_workspace.cuh.j2").render())
    exe = tmp / "streamk_offsets"
    source = Path(__file__).with_name("streamk_offsets.cpp")
    subprocess.run(["g++", "-std=c++17", "-w", "-O1", f"-I{tmp}", *(f"-I{d}" for d in include_dirs()),
                    str(source), "-o", str(exe)], check=True, capture_output=True, timeout=300)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True, timeout=60).stdout
    return [json.loads(line) for line in out.splitlines()]


def test_the_builders_barrier_offset_is_where_cutlass_clears(cutlass_rows: list[dict[str, Any]]) -> None:
    """The builder's offset equals the size of the partial tiles that CUTLASS's initialize_workspace
    skips, wherever stream-K has barriers: 10 problems x 5 tiles x 3 clusters x (3 split counts and
    forced stream-K) x 3 rasters x 2 swizzles, data-parallel, stream-K and split-K among them."""
    assert len(cutlass_rows) == 10 * 5 * 3 * 4 * 3 * 2
    with_barriers = [r for r in cutlass_rows if r["cutlass_barrier_bytes"]]
    wrong = [r for r in with_barriers if r["kiln_barrier_offset"] != r["cutlass_reduction_bytes"]]
    assert not wrong, wrong[:3]
    assert {r["splits"] for r in with_barriers} == {1, 2, 4} and any(r["forced"] for r in with_barriers)
    assert any(not r["cutlass_barrier_bytes"] for r in cutlass_rows)


RASTERS = {0: Raster.heuristic, 1: Raster.along_m, 2: Raster.along_n}  # CUTLASS's RasterOrderOptions


def test_the_ranking_models_decomposition_is_cutlasss(cutlass_rows: list[dict[str, Any]]) -> None:
    """worker/kernels/streamk.py predicts, for every row, the decomposition CUTLASS's scheduler chose
    (data-parallel, split-K and its slices, stream-K and its shared tiles and units)."""
    wrong = []
    for r in cutlass_rows:
        cfg = replace(STREAM_K, tile=tuple(r["tile"]), cluster=tuple(r["cluster"]), raster=RASTERS[r["raster"]],
                      max_swizzle=r["swizzle"], split_k=r["splits"],
                      decomposition=Decomposition.streamk if r["forced"] else Decomposition.heuristic)
        got = streamk.plan(cfg, r["m"], r["n"], r["k"], 132)
        mode = "split_k" if r["split_divisor"] > 1 else "stream_k" if r["sk_tiles"] else "data_parallel"
        same = got.mode == mode and (mode != "stream_k" or (got.sk_tiles, got.sk_units) == (r["sk_tiles"], r["sk_units"]))
        if not same or (mode == "split_k" and got.splits != r["split_divisor"]):
            wrong.append((r, got))
    assert not wrong, wrong[:3]
    # CUTLASS's heuristic turned stream-K down for one-wave problems whose tail is at least half a
    # wave, e.g. res5.1x1c (1568x512x2048, 104 tiles of 128x64): forced, every SM shares its tiles.
    res5 = replace(STREAM_K, tile=(128, 64, 128), cluster=(1, 2))
    assert streamk.plan(res5, 1568, 512, 2048, 132).mode == "data_parallel"
    forced = streamk.plan(replace(res5, decomposition=Decomposition.streamk), 1568, 512, 2048, 132)
    assert (forced.mode, forced.sk_tiles, forced.sk_units) == ("stream_k", 104, 132)


def test_the_contract_says_how_runtime_values_become_builder_arguments() -> None:
    values = launch_meta(STREAM_K)["builder_values"]
    for name, code in launcher.DECOMPOSITION_CODE.items():
        assert f"{name} {code}" in values["decomposition"]
    for name, code in launcher.RASTER_CODE.items():
        assert f"{name} {code}" in values["raster"]
    assert launch_meta(replace(STREAM_K, decomposition=Decomposition.streamk))["runtime"]["decomposition"] == "streamk"
    assert "decomposition" not in launch_meta(PERSISTENT)["runtime"]
