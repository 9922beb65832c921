"""Programmatic dependent launch: only kernels built to wait on the previous grid say they may be
launched that way, and both launch paths then set the attribute. (On the GPU every sm90 test and
benchmark launches through it; tests/gpu checks results, including a chain of kernels.)"""

from __future__ import annotations

import ctypes
from dataclasses import replace

import pytest

from service.specs.epilogues import Epilogue
from service.specs.gemm import DType, Layout
from tests.nvrtc_batch import NvrtcBatch
from worker.kernels.config import EpilogueSchedule, Family, KernelConfig, Schedule, TileScheduler
from worker.kernels.render import render, waits_on_prior_grid
from worker.runtime import driver_launch, launcher
from worker.runtime.launch_meta import launch_meta

SM90_GEMM = KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.bias, (128, 128, 64),
                         schedule=Schedule.pingpong, epilogue_schedule=EpilogueSchedule.tma, cluster=(1, 2),
                         tile_scheduler=TileScheduler.persistent)
SM80_GEMM = KernelConfig(Family.sm80_tensorop, DType.f16, Layout.row, Layout.col, Epilogue.none, (128, 128, 32),
                         warp=(64, 64, 32), stages=3, swizzle=1)
PERSISTENT_CONV = KernelConfig(Family.sm90_conv_fprop, DType.f16, Layout.row, Layout.col, Epilogue.bias_relu,
                               (128, 64, 64), schedule=Schedule.pingpong, epilogue_schedule=EpilogueSchedule.tma,
                               tile_scheduler=TileScheduler.persistent)
CUTLASS_CONV = replace(PERSISTENT_CONV, schedule=Schedule.none, epilogue_schedule=EpilogueSchedule.none,
                       tile_scheduler=TileScheduler.none)


STREAM_K = replace(SM90_GEMM, schedule=Schedule.cooperative, tile_scheduler=TileScheduler.streamk)


@pytest.mark.parametrize(("cfg", "waits"), [(SM90_GEMM, True), (PERSISTENT_CONV, True), (SM80_GEMM, False),
                                            (CUTLASS_CONV, False), (STREAM_K, False)])
def test_only_kernels_that_wait_on_the_prior_grid_allow_dependent_launch(cfg: KernelConfig, waits: bool) -> None:
    """CUTLASS's own sm90 conv kernel and the 2.x kernels never call griddepcontrol.wait: launched
    early they could read an input the previous kernel is still writing. Stream-K kernels do not
    compile with it (CUTLASS 4.2; the H200 run that found it: session8_e.sh)."""
    assert waits_on_prior_grid(cfg) is waits
    assert launch_meta(cfg)["programmatic_dependent_launch"] is waits
    assert ("#define CUTLASS_ENABLE_GDC_FOR_SM90 1" in render(cfg)) is waits


def _prepared(cluster: tuple[int, int]) -> launcher.PreparedLaunch:
    return launcher.PreparedLaunch(params=b"", slots={}, grid=(2, 66, 1), threads=384, smem=200_000, cluster=cluster,
                                   workspace_bytes=0)


def _kernel(launch: dict) -> launcher.LoadedKernel:
    """A LoadedKernel without a module (no GPU here): only its launch-config logic is used."""
    k = launcher.LoadedKernel.__new__(launcher.LoadedKernel)
    k.launch = launch
    k.dependent_launch = bool(launch.get("programmatic_dependent_launch")) and launcher.PDL_ALLOWED
    return k


def test_cuda_python_launch_config_carries_cluster_and_dependent_launch() -> None:
    cfg = _kernel({"cluster_launch": True, "programmatic_dependent_launch": True})._launch_config(_prepared((1, 2)))
    ids = [a.id for a in cfg.attrs]
    assert cfg.numAttrs == 2
    assert ids == [launcher.cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
                   launcher.cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION]
    assert cfg.attrs[1].value.programmaticStreamSerializationAllowed == 1
    plain = _kernel({"cluster_launch": True})._launch_config(_prepared((1, 1)))  # 1x1: no cluster attribute either
    assert plain.numAttrs == 0


def test_ctypes_launch_config_carries_both_attributes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(driver_launch, "_driver", lambda: None)  # no libcuda here
    d = driver_launch.DriverLaunch(1, (2, 66, 1), 384, 200_000, (2, 1), dependent_launch=True)
    assert d.config.numAttrs == 2
    first, second = d.config.attrs[0], d.config.attrs[1]
    assert (first.id, list(first.value[:3])) == (driver_launch.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, [2, 1, 1])
    assert (second.id, second.value[0]) == (driver_launch.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, 1)
    only_pdl = driver_launch.DriverLaunch(1, (2, 66, 1), 384, 0, None, dependent_launch=True)
    assert only_pdl.config.numAttrs == 1 and only_pdl.config.attrs[0].id == 6
    neither = driver_launch.DriverLaunch(1, (2, 66, 1), 384, 0, None)
    assert neither.config.numAttrs == 0 and not ctypes.cast(neither.config.attrs, ctypes.c_void_p).value


STREAM_K_BIAS_RELU = replace(STREAM_K, epilogue=Epilogue.bias_relu, tile=(128, 64, 128))


@pytest.mark.slow
@pytest.mark.nvrtc(STREAM_K_BIAS_RELU)
def test_stream_k_kernel_compiles_without_grid_dependency_control(nvrtc: NvrtcBatch) -> None:
    """The variant that failed to compile on the H200 host once every sm90 GEMM had the define."""
    assert STREAM_K_BIAS_RELU.name == "sm90_f16_rc_t128x64x128_c1x2_cooperative_tma_streamk_a888_bias_relu"
    [out] = nvrtc.outcomes(STREAM_K_BIAS_RELU)
    assert out.ok, out.error + out.log[-2000:]


PARALLEL_SPLIT = replace(SM90_GEMM, epilogue=Epilogue.bias_gelu, tile=(64, 16, 128), swap_ab=True,
                         epilogue_schedule=EpilogueSchedule.nosmem, split_k_mode="parallel", split_k=2)


def test_parallel_split_reduction_waits_on_the_gemm_and_launches_as_its_dependent(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Its second kernel reads the GEMM's partials only after griddepcontrol.wait, so the contract
    lets it launch programmatically (its launch gap overlaps the GEMM's tail: decode.m16's split
    kernels paid ~2 µs for it); the launcher then sends it through cuLaunchKernelEx with the
    attribute, the config built once per shape and its stream set only when it changes."""
    source = render(PARALLEL_SPLIT)
    reduce_body = source[source.index("kiln_splitk_reduce(KilnSplitKReduce const p) {"):]
    assert "wait_on_dependent_grids();" in reduce_body[:400]
    assert launch_meta(PARALLEL_SPLIT)["reduce"]["programmatic_dependent_launch"] is True

    sent: list = []
    monkeypatch.setattr(launcher.cu, "cuLaunchKernelEx", lambda cfg, fn, args, extra: sent.append(cfg) or (0,))
    k = _kernel({"reduce": launch_meta(PARALLEL_SPLIT)["reduce"]})
    k.reduce_entry, k.reduce_dependent_launch = object(), True
    prepared = replace(_prepared((1, 1)), reduce=(512, 64, 256))
    args = launcher.PackedArgs(None, None, 0, 8)
    k._launch_reduce(prepared, args, 7)
    k._launch_reduce(prepared, args, 7)
    assert len(sent) == 2 and sent[0] is sent[1] and prepared.reduce_stream == 7
    cfg = sent[0]
    assert (cfg.gridDimX, cfg.blockDimX, cfg.numAttrs) == (64, 256, 1)
    assert cfg.attrs[0].id == launcher.cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
