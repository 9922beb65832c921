"""Stream-K's workspace: partial-accumulator tiles, then barriers. Only the barriers must be zero
when a launch starts (CUTLASS's initialize_workspace clears only them); the builder reports where
they start and the launcher clears from there. (On the GPU: tests/gpu/test_gpu_tuning.py runs
stream-K kernels with the whole workspace dirtied between launches.)"""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest

from service.specs.epilogues import Epilogue
from service.specs.gemm import DType, Layout
from worker.kernels.config import EpilogueSchedule, Family, KernelConfig, Schedule, TileScheduler
from worker.kernels.render import render
from worker.runtime import driver_launch, launcher
from worker.runtime.launch_meta import META_FIELDS, launch_meta

STREAM_K = KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.bias_relu, (128, 64, 64),
                        schedule=Schedule.cooperative, epilogue_schedule=EpilogueSchedule.tma,
                        tile_scheduler=TileScheduler.streamk)
PERSISTENT = replace(STREAM_K, tile_scheduler=TileScheduler.persistent)


def test_only_stream_k_builders_report_where_the_zeroed_part_starts() -> None:
    assert "kMetaWorkspaceClear] =" in render(STREAM_K)
    assert "kMetaWorkspaceClear] =" not in render(PERSISTENT)  # 0: the whole workspace, as before
    assert META_FIELDS["workspace_clear"] == 15 and "meta[workspace_clear]" in launch_meta(STREAM_K)["workspace"]


@pytest.mark.parametrize(("clear", "expected"), [(3072, (0x1000 + 3072, 1024)), (0, (0x1000, 4096))])
def test_the_launcher_zeroes_the_workspace_from_the_reported_offset(monkeypatch: pytest.MonkeyPatch, clear: int,
                                                                   expected: tuple[int, int]) -> None:
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
                                       workspace_bytes=4096, workspace_clear=clear)
    kernel.launch_args(prepared, SimpleNamespace(address=0), stream=0, workspace=0x1000)  # type: ignore[arg-type]
    assert memsets == [expected]
