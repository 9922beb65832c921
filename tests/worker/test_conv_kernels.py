"""Conv2d on the CPU: the implicit-GEMM view, each conv pruning rule, the space, rendering, and a
real NVRTC compile of a fused conv variant."""

from __future__ import annotations

from dataclasses import replace

import pytest

from service.specs.conv2d import Conv2dSpec
from service.specs.epilogues import Epilogue
from service.specs.gemm import DType, Layout
from tests.nvrtc_batch import NvrtcBatch
from worker.kernels import prune_conv as PC
from worker.kernels.config import (
    ConvIterator,
    EpilogueSchedule,
    Family,
    KernelConfig,
    Schedule,
    TileScheduler,
)
from worker.kernels.conv_problem import ConvProblem
from worker.kernels.hardware import hardware_for
from worker.kernels.render import render, template_tokens
from worker.kernels.space import full_conv_space

H = hardware_for("sm_90a")
STEM = ConvProblem.from_spec(Conv2dSpec(n=32, h=224, w=224, c=3, k=64, r=7, s=7, stride=2, padding=3, epilogue="bias_relu"))
RES = ConvProblem.from_spec(Conv2dSpec(n=32, h=56, w=56, c=64, k=64, r=3, s=3, padding=1, epilogue="bias_hardswish"))
DIL = ConvProblem.from_spec(Conv2dSpec(n=2, h=9, w=9, c=24, k=32, r=3, s=3, padding=2, dilation=2))
CONV = KernelConfig(Family.sm80_conv_fprop, DType.f16, Layout.row, Layout.col, Epilogue.bias_hardswish, (128, 64, 32),
                    warp=(64, 32, 32), stages=3, swizzle=1, conv_iterator=ConvIterator.optimized)
SM90 = KernelConfig(Family.sm90_conv_fprop, DType.f16, Layout.row, Layout.col, Epilogue.bias_relu, (128, 64, 64),
                    alignment=(8, 8, 8), schedule=Schedule.pingpong, epilogue_schedule=EpilogueSchedule.tma,
                    tile_scheduler=TileScheduler.persistent)
FOLDED = replace(SM90, tile=(128, 64, 16), s2d=2, pad_c=8)  # the stem, 2x2 space-to-depth: 12 → 16 channels


def test_implicit_gemm_view_and_padding() -> None:
    assert RES.gemm.m == 32 * 56 * 56 and RES.gemm.n == 64 and RES.gemm.k == 64 * 9
    assert STEM.output_hw == (112, 112)
    padded = STEM.padded(8)
    assert padded.kernel_c == 8 and padded.gemm.k == 8 * 49 and padded.max_alignment() == (8, 8, 8)
    assert STEM.max_alignment()[0] == 1  # C=3 allows only 2-byte loads
    assert padded.flops == STEM.flops  # padding is not useful work
    assert RES.padded(8) == RES  # already a multiple: nothing to pad


def test_space_to_depth_rewrites_the_stem_as_a_stride_1_conv() -> None:
    folded = STEM.space_to_depth(2)
    assert (folded.h, folded.w, folded.c, folded.r, folded.s) == (115, 115, 12, 4, 4)
    assert folded.stride == (1, 1) and folded.padding == (0, 0) and folded.output_hw == STEM.output_hw
    kp = STEM.rewritten(2, 8)
    assert kp.kernel_c == 16 and kp.gemm.k == 16 * 16 and kp.gemm.m == STEM.gemm.m
    assert kp.flops == STEM.flops  # folded taps and padded channels are not useful work
    assert kp.builder_dims()["stride_h"] == 1 and kp.builder_dims()["c"] == 16
    with pytest.raises(ValueError, match="stride"):
        RES.space_to_depth(2)


def test_stem_selection_offers_folded_tma_kernels_and_small_c_iterators() -> None:
    from worker.selection import select_conv

    spec = Conv2dSpec(n=32, h=224, w=224, c=3, k=64, r=7, s=7, stride=2, padding=3, epilogue="bias_relu")
    kept = select_conv(spec, "sm_90a", H, 8).report.kept
    folded = [c for c in kept if c.s2d]
    assert folded and all(c.family is Family.sm90_conv_fprop and c.tile[2] == 16 and c.pad_c == 8 for c in folded)
    assert any(c.is_2x and c.conv_iterator is ConvIterator.fixed_channels for c in kept)
    assert all(c.name.endswith("_s2d2_padc8") for c in folded)


CASES = [  # (rule, config it keeps, on problem, config it drops, on problem)
    (PC.conv_alignment_fits, replace(CONV, alignment=(4, 4, 8), pad_c=4), STEM, CONV, STEM),  # C=3: no 8-wide loads
    (PC.conv_alignment_fits, replace(CONV, alignment=(8, 8, 8), pad_c=8), STEM, replace(CONV, alignment=(1, 1, 8)), STEM),
    (PC.conv_iterator_fits, replace(CONV, conv_iterator=ConvIterator.fixed_channels, alignment=(4, 4, 8), pad_c=4), STEM,
     replace(CONV, conv_iterator=ConvIterator.fixed_channels, alignment=(4, 4, 8), pad_c=8), STEM),
    (PC.conv_iterator_fits, replace(CONV, conv_iterator=ConvIterator.few_channels, alignment=(8, 8, 8), pad_c=8), STEM,
     replace(CONV, conv_iterator=ConvIterator.few_channels), RES),
    (PC.conv_small_channels, replace(CONV, conv_iterator=ConvIterator.few_channels, alignment=(4, 4, 8), pad_c=4), STEM,
     replace(CONV, alignment=(4, 4, 8), pad_c=4), STEM),
    (PC.conv_optimized_over_analytic, replace(CONV, conv_iterator=ConvIterator.analytic), DIL,
     replace(CONV, conv_iterator=ConvIterator.analytic), RES),
    (PC.conv_padding_worthwhile, replace(CONV, pad_c=8), STEM, replace(CONV, pad_c=8), RES),
    (PC.conv_padding_worthwhile, FOLDED, STEM, replace(FOLDED, pad_c=4), STEM),  # 12 folded channels: pad to 8
    (PC.conv_k_tile_matches_channels, SM90, RES, replace(SM90, tile=(128, 64, 32)), RES),
    (PC.conv_k_tile_matches_channels, FOLDED, STEM, replace(FOLDED, tile=(128, 64, 64)), STEM),  # 48 zero channels
    (PC.conv_space_to_depth_pays, FOLDED, STEM, replace(CONV, s2d=2, alignment=(4, 4, 8)), STEM),
    (PC.conv_space_to_depth_pays, SM90, RES, replace(FOLDED, tile=(128, 64, 64)), replace(RES, stride=(2, 2))),
]


@pytest.mark.parametrize("rule,keep,keep_on,drop,drop_on", CASES, ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_conv_rule_keeps_and_drops(rule, keep, keep_on, drop, drop_on) -> None:  # type: ignore[no-untyped-def]
    assert rule(keep, keep_on, H) is None
    reason = rule(drop, drop_on, H)
    assert isinstance(reason, str) and reason


def test_every_conv_rule_is_covered_and_documented() -> None:
    assert set(PC.CONV_RULES) <= {c[0] for c in CASES}
    assert all(rule.__doc__ for rule in PC.CONV_RULES)


def test_stem_conv_is_padded_and_uses_small_channel_iterators() -> None:
    report = PC.prune_conv(full_conv_space(STEM, "sm_90a"), STEM, H, limit=8)
    assert report.total == sum(report.removed.values()) + report.survivors
    assert report.kept and all(c.pad_c in (4, 8) for c in report.kept)
    assert all(c.conv_iterator in (ConvIterator.fixed_channels, ConvIterator.few_channels)
               for c in report.kept if c.is_2x)
    assert {c.pad_c for c in report.kept} == {4, 8}  # both paddings timed: the faster one wins


def test_dense_conv_keeps_optimized_kernels_with_8_wide_loads() -> None:
    kept = [c for c in PC.prune_conv(full_conv_space(RES, "sm_90a"), RES, H, limit=8).kept if c.is_2x]
    assert kept and all(c.conv_iterator is ConvIterator.optimized and c.alignment == (8, 8, 8) for c in kept)


def test_conv_render_uses_whitelisted_tokens_only() -> None:
    tokens = template_tokens(CONV)
    assert tokens["iterator_algorithm"] == "kOptimized" and tokens["activation_fn"] == "cutlass::epilogue::thread::HardSwish"
    src = render(CONV)
    assert "DefaultConv2dFprop" in src and "kiln_conv2d_fprop" in src and "kiln_build_params" in src
    with pytest.raises(ValueError):
        template_tokens(replace(CONV, epilogue=Epilogue.bias_residual_add))


@pytest.mark.slow
@pytest.mark.nvrtc(CONV)
def test_compile_a_fused_conv_variant_with_nvrtc(nvrtc: NvrtcBatch) -> None:
    [out] = nvrtc.outcomes(CONV)
    assert out.ok, out.error + out.log[-2000:]
    assert out.cubin[:4] == b"\x7fELF"
    assert b"kiln_conv2d_fprop" in out.cubin and b"kiln_build_params" in out.cubin
    assert 50_000 < len(out.cubin) < 5_000_000


def test_pointwise_conv_is_a_gemm_with_a_launch_contract() -> None:
    from worker.kernels.config import EpilogueSchedule, Schedule, TileScheduler
    from worker.runtime.launch_meta import launch_meta

    pw = ConvProblem.from_spec(Conv2dSpec(n=32, h=56, w=56, c=64, k=256, r=1, s=1, epilogue="bias"))
    assert pw.is_pointwise and not RES.is_pointwise
    assert (pw.gemm.m, pw.gemm.n, pw.gemm.k) == (32 * 56 * 56, 256, 64)
    assert not ConvProblem.from_spec(Conv2dSpec(n=1, h=8, w=8, c=64, k=64, r=1, s=1, stride=2)).is_pointwise
    sm90 = KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.bias, (128, 128, 64),
                        schedule=Schedule.cooperative, epilogue_schedule=EpilogueSchedule.tma,
                        tile_scheduler=TileScheduler.persistent)
    meta = launch_meta(sm90, conv_as_gemm=True)
    assert meta["conv"]["as_gemm"] and meta["entry"] == "kiln_gemm" and meta["conv"]["pad_channels_to"] == 1
    conv_meta = launch_meta(replace(CONV, pad_c=8))
    assert conv_meta["entry"] == "kiln_conv2d_fprop" and conv_meta["conv"]["pad_channels_to"] == 8
    assert conv_meta["builder_args"][0] == "n:i32"


def test_tiny_convs_keep_a_kernel() -> None:
    """64x64 threadblocks with 32x32 warps stay for problems too small to fill the GPU."""
    tiny = ConvProblem.from_spec(Conv2dSpec(n=2, h=15, w=15, c=40, k=64, r=1, s=1, stride=2, epilogue="bias"))
    assert PC.prune_conv(full_conv_space(tiny, "sm_90a"), tiny, H, limit=2).kept


SM90_CONV = KernelConfig(Family.sm90_conv_fprop, DType.f16, Layout.row, Layout.col, Epilogue.bias_relu, (128, 128, 64))


def test_sm90_conv_joins_the_search_unless_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KILN_SM90_CONV", "0")
    assert not any(c.family is Family.sm90_conv_fprop for c in full_conv_space(RES, "sm_90a"))
    monkeypatch.delenv("KILN_SM90_CONV")
    kept = PC.prune_conv(full_conv_space(RES, "sm_90a"), RES, H, limit=8).kept
    assert any(c.family is Family.sm90_conv_fprop for c in kept)
    assert not any(c.family is Family.sm90_conv_fprop for c in full_conv_space(RES, "sm_80"))
    assert PC.conv_alignment_fits(replace(SM90_CONV, alignment=(4, 4, 8), pad_c=4), STEM, H)  # TMA: 16-byte rows


def test_im2col_record_round_trip() -> None:
    """The overlay's record layout (worker/kernels/overlay.py) as the launcher reads it."""
    import struct

    from worker.runtime.launcher import IM2COL_MAGIC, Im2colRecord

    raw = bytearray(128)
    flags = 3 | (0 << 8) | (2 << 16) | (0 << 24)
    struct.pack_into("<8I", raw, 0, IM2COL_MAGIC, 4, flags, 64, 56, 56, 32, 1)
    struct.pack_into("<4Q", raw, 32, 128, 128 * 56, 128 * 56 * 56, 0)
    struct.pack_into("<6i", raw, 64, -1, -1, 0, -1, -1, 0)
    struct.pack_into("<7I", raw, 88, 64, 128, 1, 1, 1, 1, 1)
    r = Im2colRecord.parse(bytes(raw))
    assert (r.rank, r.swizzle_bits, r.l2promo, r.dims, r.strides) == (4, 3, 2, [64, 56, 56, 32], [128, 7168, 401408])
    assert (r.lower, r.upper, r.channels_per_pixel, r.pixels_per_column) == ([-1, -1], [-1, -1], 64, 128)
    with pytest.raises(RuntimeError, match="overlay"):
        Im2colRecord.parse(bytes(128))


@pytest.mark.slow
@pytest.mark.nvrtc(SM90_CONV)
def test_compile_an_sm90_tma_im2col_conv_with_nvrtc(nvrtc: NvrtcBatch) -> None:
    """CUTLASS's im2col TMA descriptors are host-only code; Kiln's overlay makes them build on the
    device and leave their encode arguments for the launcher. This compiles one such kernel."""
    from worker.runtime.launch_meta import launch_meta

    [out] = nvrtc.outcomes(SM90_CONV)
    assert out.ok, out.error + out.log[-2000:]
    assert out.cubin[:4] == b"\x7fELF" and b"kiln_conv2d_fprop" in out.cubin and b"kiln_build_params" in out.cubin
    meta = launch_meta(SM90_CONV)
    assert meta["tma_operands"] == ["A", "B", "D"] and meta["cluster_launch"] and meta["conv"]["iterator"] == "tma_im2col"


def test_every_family_with_survivors_gets_timed() -> None:
    """Even when the cost model ranks all sm90 conv kernels below the 2.x ones, the best sm90 one
    takes the place of the most crowded family's last pick."""
    survivors = PC.prune_conv(full_conv_space(RES, "sm_90a"), RES, H).kept
    sm80_first = sorted(survivors, key=lambda c: c.family is Family.sm90_conv_fprop)
    kept = PC._with_every_family(sm80_first[:6], sm80_first, 6)
    assert len(kept) == 6 and kept[:5] == sm80_first[:5]
    assert kept[5] == next(c for c in sm80_first if c.family is Family.sm90_conv_fprop)
    assert PC._with_every_family(sm80_first[:3], sm80_first, 3) == sm80_first[:3]  # too few slots to share


def test_persistent_conv_render_and_launch_contract() -> None:
    """Kiln's persistent sm90 convs: CUTLASS's GEMM kernel around the conv mainloop, a tiled TMA
    epilogue, the builder's persistent-grid arguments, and the cubin's own input transform."""
    from worker.runtime.launch_meta import launch_meta

    assert template_tokens(SM90)["persistent"] and not template_tokens(SM90_CONV)["persistent"]
    src = render(FOLDED)
    assert "KilnConvMainloop" in src and "cutlass::gemm::kernel::GemmUniversal" in src and "kiln_fold_input" in src
    assert "kiln_fold_input" in render(SM90_CONV)  # every sm90 conv cubin carries the transform
    assert SM90.variant_name.endswith("_t128x64x64_c1x1_pingpong_s0_a888_bias_relu")
    assert SM90_CONV.variant_name == "conv2d_fprop_sm90_f16_nhwc_t128x128x64_c1x1_s0_a888_bias_relu"  # names kept
    with pytest.raises(ValueError):
        template_tokens(replace(SM90, epilogue_schedule=EpilogueSchedule.nosmem))
    meta = launch_meta(FOLDED)
    assert {"sm_count:i32", "raster:i32", "max_swizzle:i32"} <= set(meta["builder_args"])
    assert meta["conv"]["space_to_depth"] == 2 and meta["conv"]["pad_channels_to"] == 8
    fold = meta["conv"]["input_transform"]
    assert fold["entry"] == "kiln_fold_input" and fold["vector"] == "cp" and "b:i32" in fold["args"]
    assert "input_transform" not in launch_meta(CONV)["conv"]  # 2.x convs: the client pads with torch
    assert FOLDED.compiled == replace(SM90, tile=(128, 64, 16))  # folding and padding are launch-time


@pytest.mark.slow
@pytest.mark.nvrtc(FOLDED)
def test_compile_a_folded_persistent_conv_with_nvrtc(nvrtc: NvrtcBatch) -> None:
    [out] = nvrtc.outcomes(FOLDED)
    assert out.ok, out.error + out.log[-2000:]
    for symbol in (b"kiln_conv2d_fprop", b"kiln_build_params", b"kiln_fold_input"):
        assert symbol in out.cubin
