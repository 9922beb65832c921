"""On a GPU: Conv2d kernels are verified across strides, padding, odd channel counts and fused
epilogues; the padded stem conv runs through the client helper; the tuning step finds a winner.

Run on the H200 with `python -m pytest tests/gpu -m gpu`.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from service.specs.conv2d import Conv2dSpec
from service.specs.epilogues import Epilogue
from service.specs.gemm import DType, Layout
from worker.kernels.compiler import Compiler
from worker.kernels.config import EpilogueSchedule, Family, KernelConfig, Schedule, TileScheduler
from worker.kernels.conv_problem import ConvProblem
from worker.kernels.hardware import hardware_for
from worker.kernels.prune_conv import prune_conv
from worker.kernels.space import full_conv_space
from worker.runtime.launch_meta import launch_meta, plan_entry

pytestmark = pytest.mark.gpu

CASES = [  # (spec, why)
    dict(n=2, h=17, w=19, c=3, k=64, r=7, s=7, stride=2, padding=3, epilogue="bias_relu"),  # stem: C padded
    dict(n=3, h=14, w=14, c=64, k=72, r=3, s=3, stride=1, padding=1, epilogue="bias_hardswish"),  # K not a tile multiple
    dict(n=2, h=15, w=15, c=40, k=64, r=1, s=1, stride=2, padding=0, epilogue="bias"),  # strided 1x1
    dict(n=2, h=9, w=9, c=24, k=32, r=3, s=3, stride=1, padding=2, dilation=2, epilogue="silu"),  # dilated: analytic
    dict(n=2, h=8, w=8, c=64, k=64, r=3, s=3, stride=1, padding=1, epilogue="residual_add_relu"),
]


SM90_CONV = KernelConfig(Family.sm90_conv_fprop, DType.f16, Layout.row, Layout.col, Epilogue.bias_relu, (128, 128, 64))
# Kiln's persistent sm90 convs (CUTLASS's persistent GEMM kernels around the conv mainloop), in
# both schedules and both cluster directions, over the cases that stress them: K not a tile
# multiple, a strided 1x1 with C below the K tile, a residual through the tiled TMA epilogue.
PERSISTENT = [replace(SM90_CONV, schedule=Schedule.cooperative, epilogue_schedule=EpilogueSchedule.tma,
                      tile_scheduler=TileScheduler.persistent, cluster=(2, 1)),
              replace(SM90_CONV, tile=(64, 128, 64), schedule=Schedule.pingpong, epilogue_schedule=EpilogueSchedule.tma,
                      tile_scheduler=TileScheduler.persistent, cluster=(1, 2))]
# and the cooperative one with four TMA subtile stores in flight (Kiln's own epilogue dispatch
# policy; with the residual, D reuses five source buffers)
PERSISTENT.append(replace(PERSISTENT[0], epilogue_store_stages=4))
PERSISTENT_CASES = [CASES[1], CASES[2], CASES[4]]


def persistent_configs() -> list[tuple[dict, KernelConfig]]:
    """Each persistent config with each case's epilogue (what the device prefill compiles too)."""
    out = []
    for case in PERSISTENT_CASES:
        spec = Conv2dSpec.model_validate({"op": "conv2d", **case})
        for cfg in PERSISTENT:
            out.append((case, replace(cfg, epilogue=spec.epilogue)))
    return out


def kept_configs(spec: Conv2dSpec, limit: int = 2) -> list[KernelConfig]:
    """What `_compiled` builds for a case (scripts/device/prefill_gpu_tests.py compiles the same)."""
    cp = ConvProblem.from_spec(spec)
    return prune_conv(full_conv_space(cp, "sm_90a"), cp, hardware_for("sm_90a"), limit=limit).kept


def _compile(configs: list[KernelConfig], tmp: Path) -> list[dict]:
    """Each config compiled (through KILN_DATA_DIR's cache where set) and written out as the plan
    entry the tuner's measurement process reads: cubin path, launch contract."""
    cache = Path(os.environ.get("KILN_DATA_DIR", tmp)) / "compile-cache"
    outs = {o.config.compiled: o for o in Compiler(cache, jobs=os.cpu_count()).compile_all(configs, target_arch="sm_90a")}
    entries = []
    for cfg in configs:
        o = outs[cfg.compiled]
        assert o.ok, (o.error or "") + o.log[-2000:]
        path = tmp / f"{cfg.name}.cubin"
        path.write_bytes(o.cubin or b"")
        entries.append(plan_entry(cfg, str(path)))
    return entries


def _compiled(spec: Conv2dSpec, tmp: Path, limit: int = 2) -> list[dict]:
    kept = kept_configs(spec, limit)
    assert kept, "no conv config survived pruning"
    return _compile(kept, tmp)


def _bench(spec: Conv2dSpec):  # type: ignore[no-untyped-def]
    """The tuner's measurement problem for a spec: operands, fp32 reference, epilogue."""
    from worker.gpu_bench_conv import ConvBench

    parts = spec.epilogue.parts
    act = parts.post_activation if parts.residual else parts.activation
    return ConvBench(spec.model_dump(mode="json"), {"bias": parts.bias, "residual": parts.residual, "activation": act.value})


def _verify(entry: dict, prob) -> tuple[bool, str | None, float]:  # type: ignore[no-untyped-def]
    """The tuner's own check of one candidate (poisoned output, exact and random inputs)."""
    import torch

    from worker import gpu_bench

    scratch = torch.zeros(65536, dtype=torch.uint8, device="cuda")
    c = gpu_bench.Candidate(entry, prob, torch.cuda.get_device_properties(0).multi_processor_count,
                            torch.cuda.current_stream().cuda_stream, scratch.data_ptr())
    return gpu_bench.verify(c, prob)


@pytest.mark.parametrize("case", CASES, ids=[f"{c['c']}c_{c['r']}x{c['s']}_s{c['stride']}_{c['epilogue']}" for c in CASES])
def test_conv_kernels_verify_against_fp32_reference(case: dict, tmp_path: Path) -> None:
    spec = Conv2dSpec.model_validate({"op": "conv2d", **case})
    prob = _bench(spec)
    for entry in _compiled(spec, tmp_path):
        ok, reason, err = _verify(entry, prob)
        assert ok, f"{entry['name']}: {reason}"
        assert err < 2e-3


def test_padded_stem_conv_through_the_client_helper(tmp_path: Path) -> None:
    import torch
    import torch.nn.functional as F

    from worker.runtime.torch_conv import KilnConv2d

    spec = Conv2dSpec.model_validate({"op": "conv2d", **CASES[0]})
    entry = _compiled(spec, tmp_path, limit=1)[0]
    launch = entry["launch"]
    assert launch["conv"]["pad_channels_to"] in (4, 8)
    conv = KilnConv2d(Path(entry["cubin_path"]).read_bytes(), launch, spec.model_dump(mode="json"))
    x = torch.randn(2, 3, 17, 19, device="cuda", dtype=torch.half)
    w = torch.randn(64, 3, 7, 7, device="cuda", dtype=torch.half) * 0.1
    b = torch.randn(64, device="cuda", dtype=torch.half)
    y = conv(x, w, b)
    ref = torch.relu(F.conv2d(x.float(), w.float(), b.float(), 2, 3))
    assert y.shape == ref.shape
    assert float((y.float() - ref).norm() / ref.norm()) < 2e-3
    with pytest.raises(ValueError, match="tuned for"):
        conv(torch.randn(2, 4, 17, 19, device="cuda", dtype=torch.half), torch.randn(64, 4, 7, 7, device="cuda",
                                                                                     dtype=torch.half), b)


def test_conv_tuning_step_finds_a_winner_and_states_cudnn() -> None:
    from worker.gpu_step import GpuTuningStep

    step = GpuTuningStep(0, limit=3, jobs=os.cpu_count())
    spec = Conv2dSpec(n=8, h=28, w=28, c=64, k=128, r=3, s=3, padding=1, epilogue="bias_relu")
    out = step.tune_conv(spec, "sm_90a", lambda **kw: None)
    assert out.kernels and out.kernel_time_us and out.baseline_time_us
    assert "cudnn_conv_only" in out.library_times_us and "cudnn+torch" in out.library_times_us
    assert out.launch["conv"]["activation_layout"] == "NHWC"


def test_sm90_im2col_conv_verifies(tmp_path: Path) -> None:
    """The sm90 TMA-im2col conv kernels (host-encoded im2col descriptors from the overlay's
    record): a 3x3 conv with bias+ReLU, against the fp32 reference."""
    [entry] = _compile([SM90_CONV], tmp_path)
    spec = Conv2dSpec(n=4, h=20, w=20, c=64, k=128, r=3, s=3, padding=1, epilogue="bias_relu")
    ok, reason, _ = _verify(entry, _bench(spec))
    assert ok, reason


def test_kiln_conv_module_uses_the_kernel(tmp_path: Path) -> None:
    """KilnConv2dModule → kiln::conv2d → the registry's KilnConv2d (padded stem conv), vs cuDNN."""
    import torch

    from worker.runtime import torch_ops
    from worker.runtime.torch_conv import KilnConv2d

    spec = Conv2dSpec.model_validate({"op": "conv2d", **CASES[0]})
    entry = _compiled(spec, tmp_path, limit=1)[0]
    kernel = KilnConv2d(Path(entry["cubin_path"]).read_bytes(), entry["launch"], spec.model_dump(mode="json"))

    class Fixed(torch_ops.KernelRegistry):
        calls = 0

        def conv2d(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            Fixed.calls += 1
            return kernel

    torch_ops.set_registry(Fixed(None))
    try:
        conv = torch_ops.KilnConv2dModule(3, 64, 7, stride=2, padding=3, activation="relu", device="cuda",
                                          dtype=torch.half)
        x = torch.randn(2, 3, 17, 19, device="cuda", dtype=torch.half)
        y = conv(x)
        ref = torch.relu(torch.nn.functional.conv2d(x.float(), conv.weight.float(), conv.bias.float(), 2, 3))
        assert Fixed.calls == 1 and y.shape == ref.shape
        assert float(((y.float() - ref).norm() / ref.norm()).detach()) < 2e-3  # the module's weight wants grad
    finally:
        torch_ops.set_registry(None)


def test_sm90_conv_through_the_client_helper_with_new_and_repeated_tensors(tmp_path: Path) -> None:
    """KilnConv2d packs an SM90 conv's launch arguments (im2col TMA descriptors included) once per
    pointer set: a repeated call must reuse them, a call on new tensors must not."""
    import torch
    import torch.nn.functional as F

    from worker.runtime.torch_conv import KilnConv2d

    cfg = SM90_CONV
    cache = Path(os.environ.get("KILN_DATA_DIR", tmp_path)) / "compile-cache"
    [o] = Compiler(cache, jobs=os.cpu_count()).compile_all([cfg], target_arch="sm_90a")
    assert o.ok, o.error
    spec = Conv2dSpec(n=4, h=20, w=20, c=64, k=128, r=3, s=3, padding=1, epilogue="bias_relu")
    conv = KilnConv2d(o.cubin or b"", launch_meta(cfg), spec.model_dump(mode="json"))
    w = torch.randn(128, 64, 3, 3, device="cuda", dtype=torch.half) * 0.1
    b = torch.randn(128, device="cuda", dtype=torch.half)
    xs = [torch.randn(4, 64, 20, 20, device="cuda", dtype=torch.half) for _ in range(2)]
    for x in (xs[0], xs[1], xs[0]):
        y = conv(x, w, b)
        ref = torch.relu(F.conv2d(x.float(), w.float(), b.float(), 1, 1))
        assert float((y.float() - ref).norm() / ref.norm()) < 2e-3


def test_persistent_sm90_convs_verify_and_launch_through_the_client_helper(tmp_path: Path) -> None:
    """Cooperative and ping-pong persistent conv kernels: verified against the fp32 reference by
    the tuner's own check, then launched through KilnConv2d (the builder's sm_count argument)."""
    import torch
    import torch.nn.functional as F

    from worker.runtime.torch_conv import KilnConv2d

    pairs = persistent_configs()
    entries = _compile([cfg for _, cfg in pairs], tmp_path)
    for (case, cfg), entry in zip(pairs, entries, strict=True):
        spec = Conv2dSpec.model_validate({"op": "conv2d", **case})
        ok, reason, err = _verify(entry, _bench(spec))
        assert ok, f"{cfg.name} on {case}: {reason}"
        assert err < 2e-3
        parts = spec.epilogue.parts
        if parts.residual:
            continue
        conv = KilnConv2d(Path(entry["cubin_path"]).read_bytes(), entry["launch"], spec.model_dump(mode="json"))
        x = torch.randn(2, spec.c, spec.h, spec.w, device="cuda", dtype=torch.half)
        w = torch.randn(spec.k, spec.c, spec.r, spec.s, device="cuda", dtype=torch.half) * 0.1
        b = torch.randn(spec.k, device="cuda", dtype=torch.half)
        y = conv(x, w, b)
        ref = F.conv2d(x.float(), w.float(), b.float(), spec.stride, spec.padding)
        ref = {"relu": torch.relu, "hardswish": F.hardswish, "identity": lambda t: t}[parts.activation.value](ref)
        assert float((y.float() - ref).norm() / ref.norm()) < 2e-3, cfg.name


FOLDED_STEM = replace(SM90_CONV, tile=(128, 64, 16), schedule=Schedule.pingpong, epilogue_schedule=EpilogueSchedule.tma,
                      tile_scheduler=TileScheduler.persistent, s2d=2, pad_c=8)


def test_space_to_depth_stem_verifies_and_runs_through_the_client_helper(tmp_path: Path) -> None:
    """The stem folded 2x2 space-to-depth (stride-1 4x4 conv over 12 → 16 channels, 16-deep K
    tiles): the tuner's check, then KilnConv2d folding the user's NCHW tensors itself."""
    import torch
    import torch.nn.functional as F

    from worker.runtime import conv_transforms
    from worker.runtime.torch_conv import KilnConv2d

    spec = Conv2dSpec.model_validate({"op": "conv2d", **CASES[0]})
    [entry] = _compile([replace(FOLDED_STEM, epilogue=spec.epilogue)], tmp_path)
    meta, cubin = entry["launch"], Path(entry["cubin_path"]).read_bytes()
    assert meta["conv"]["space_to_depth"] == 2 and meta["conv"]["pad_channels_to"] == 8
    ok, reason, err = _verify(entry, _bench(spec))
    assert ok, reason
    conv = KilnConv2d(cubin, meta, spec.model_dump(mode="json"))
    x = torch.randn(2, 3, 17, 19, device="cuda", dtype=torch.half)
    w = torch.randn(64, 3, 7, 7, device="cuda", dtype=torch.half) * 0.1
    b = torch.randn(64, device="cuda", dtype=torch.half)
    # the cubin's own fold kernel builds exactly what the torch transforms (verified above) build
    kp = conv.kernel_problem(x, w)
    assert conv.kernel.fold_entry is not None
    want = conv_transforms.kernel_input(x.permute(0, 2, 3, 1), pad_to=8, block=2, padding=(3, 3), out_hw=kp.output_hw,
                                        taps=(kp.r, kp.s))
    assert torch.equal(conv.to_kernel_input(x, kp), want)
    y = conv(x, w, b)
    ref = torch.relu(F.conv2d(x.float(), w.float(), b.float(), 2, 3))
    assert y.shape == ref.shape
    assert float((y.float() - ref).norm() / ref.norm()) < 2e-3
    # the same kernel pads channels only (b = 1), for an unfolded contract
    plain = KilnConv2d(cubin, {**meta, "conv": {**meta["conv"], "space_to_depth": 1}},
                       spec.model_dump(mode="json"))
    kp1 = plain.kernel_problem(x, w)
    assert kp1.kernel_c == 8 and torch.equal(plain.to_kernel_input(x, kp1), conv_transforms.pad_channels(
        x.permute(0, 2, 3, 1), 8))
