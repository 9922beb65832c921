"""The measurement process's operands on the CPU: padded GEMM and conv inputs are zero where
padded, references ignore the padding, and each candidate family gets the launch shape it needs.
(Kernels themselves run in tests/gpu.)"""

from __future__ import annotations

import random

import pytest

torch = pytest.importorskip("torch")

from worker.gpu_bench import Problem  # noqa: E402
from worker.gpu_bench_conv import ConvBench  # noqa: E402

EPI = {"bias": True, "residual": False, "activation": "sigmoid"}  # sigmoid(0) = 0.5: padding must not leak


def test_padded_gemm_operands_and_reference() -> None:
    spec = {"m": 300, "n": 777, "k": 509, "dtype": "f16", "layout_a": "row", "layout_b": "col", "alpha": 1.0, "beta": 0.0}
    prob = Problem(spec, EPI, device="cpu")
    plain = prob.make((300, 777, 509), "rand")
    padded = prob.make((300, 777, 509), "rand", 8)
    assert tuple(padded.A.shape) == (300, 512) and tuple(padded.B.shape) == (784, 512) and padded.bias.shape == (784,)
    assert tuple(padded.D.shape) == (300, 784) and tuple(padded.out().shape) == (300, 777)
    assert not padded.A[:, 509:].any() and not padded.B[777:].any() and not padded.B[:, 509:].any()
    assert prob.launch_shape(padded) == {"m": 300, "n": 784, "k": 512}
    assert prob.launch_shape(plain) == {"m": 300, "n": 777, "k": 509}
    ref = prob.reference(padded)
    assert tuple(ref.shape) == (300, 777)
    unpadded = torch.sigmoid(padded.A[:, :509].float() @ padded.B[:777, :509].float().t() + padded.bias[:777].float())
    torch.testing.assert_close(ref, unpadded)


def test_the_tail_test_cuts_k_in_steps_the_kernel_can_take() -> None:
    """The tail shape ends in a partial k-tile, but an odd-width tile's boxed B view holds whole
    8-row groups and 64-wide K atoms only: its cut keeps K a multiple of 64 (and, swapped, M a
    multiple of 8), where the default 24 would have its params builder refuse the launch."""
    from dataclasses import replace

    from worker.gpu_bench import tail_cuts
    from worker.kernels.config import (
        DType,
        Epilogue,
        EpilogueSchedule,
        Family,
        KernelConfig,
        Layout,
        Schedule,
        TileScheduler,
    )

    even = KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.none, (64, 96, 128), cluster=(1, 4),
                        schedule=Schedule.single, epilogue_schedule=EpilogueSchedule.tma,
                        tile_scheduler=TileScheduler.none)
    odd = replace(even, tile=(64, 88, 128), cluster=(1, 2))
    spec = {"m": 64, "n": 11008, "k": 4096, "dtype": "f16", "layout_a": "row", "layout_b": "col", "alpha": 1.0, "beta": 0.0}
    prob = Problem(spec, {"bias": False, "residual": False, "activation": "identity"}, device="cpu")
    assert tail_cuts(even.to_dict()) == (13, 24)
    assert prob.verify_shapes(*tail_cuts(even.to_dict()))[-1] == ((51, 11008, 4072), "rand")
    assert tail_cuts(odd.to_dict()) == (13, 192)
    (m, n, k), _ = prob.verify_shapes(*tail_cuts(odd.to_dict()))[-1]
    assert (m, n, k) == (51, 11008, 3904) and k % 64 == 0 and k % 128  # whole atoms, a partial k-tile
    assert tail_cuts(replace(odd, swap_ab=True).to_dict()) == (16, 192)


def test_conv_operands_padding_and_launch_shapes() -> None:
    spec = {"op": "conv2d", "n": 2, "h": 9, "w": 11, "c": 3, "k": 16, "r": 3, "s": 3, "padding": 1, "dtype": "f16",
            "epilogue": "bias_sigmoid"}
    bench = ConvBench(spec, EPI, device="cpu")
    o = bench.make(bench.full_shape, "int", 4)
    assert tuple(o.x.shape) == (2, 9, 11, 4) and not o.x[..., 3:].any() and not o.w[..., 3:].any()
    dims = bench.launch_shape(o, {"family": "sm80_conv_fprop"})["dims"]
    assert (dims["c"], dims["p"], dims["q"], dims["k"]) == (4, 9, 11, 16)
    ref = bench.reference(o)  # NHWC, from the unpadded channels
    want = torch.sigmoid(torch.nn.functional.conv2d(o.x_nchw().float(), o.w_kcrs().float(), o.bias.float(), 1, 1))
    torch.testing.assert_close(ref, want.permute(0, 2, 3, 1))
    pointwise = ConvBench({**spec, "c": 64, "r": 1, "s": 1, "padding": 0}, EPI, device="cpu")
    po = pointwise.make(pointwise.full_shape, "rand")
    assert pointwise.launch_shape(po, {"family": "sm90_tma"}) == {"m": 2 * 9 * 11, "n": 16, "k": 64}


def test_client_side_gemm_padding_preserves_the_product() -> None:
    from worker.runtime.torch_gemm import pad_activations, pad_parameters, padded_kn

    x, w, b, r = torch.randn(5, 509), torch.randn(777, 509), torch.randn(777), torch.randn(5, 777)
    kp, np_ = padded_kn(509, 777, 8)
    assert (kp, np_) == (512, 784) and padded_kn(512, 784, 8) == (512, 784)
    wp, bp = pad_parameters(w, b, kp, np_)
    xp, rp = pad_activations(x, r, kp, np_)
    assert tuple(wp.shape) == (784, 512) and tuple(xp.shape) == (5, 512) and tuple(rp.shape) == (5, 784)
    y = (xp @ wp.t() + bp + rp)[:, :777]
    torch.testing.assert_close(y, x @ w.t() + b + r, rtol=1e-4, atol=1e-4)


def test_client_side_conv_layout_and_channel_padding() -> None:
    from worker.runtime.conv_transforms import pad_channels

    x = torch.randn(2, 3, 5, 7).contiguous(memory_format=torch.channels_last)
    p = pad_channels(x.permute(0, 2, 3, 1), 4)
    assert tuple(p.shape) == (2, 5, 7, 4) and not p[..., 3:].any()
    torch.testing.assert_close(p[..., :3], x.permute(0, 2, 3, 1))
    y = torch.randn(2, 8, 5, 7).contiguous(memory_format=torch.channels_last)
    assert pad_channels(y.permute(0, 2, 3, 1), 8).data_ptr() == y.data_ptr()  # channels_last is NHWC: no copy


@pytest.mark.parametrize("h,w,r,pad,block", [(17, 19, 7, 3, 2), (16, 16, 3, 1, 2), (15, 13, 5, 0, 2), (23, 21, 7, 2, 4)])
def test_space_to_depth_operands_compute_the_same_convolution(h: int, w: int, r: int, pad: int, block: int) -> None:
    """The folded stride-1 conv on the operands the kernel reads equals the user's strided conv."""
    spec = {"op": "conv2d", "n": 2, "h": h, "w": w, "c": 3, "k": 16, "r": r, "s": r, "stride": block, "padding": pad,
            "dtype": "f16", "epilogue": "bias"}
    bench = ConvBench(spec, EPI, device="cpu")
    o = bench.make(bench.full_shape, "rand", 8, block)
    kp = o.kernel_problem
    assert tuple(o.x.shape) == (2, kp.h, kp.w, kp.kernel_c) and tuple(o.w.shape) == (16, kp.r, kp.s, kp.kernel_c)
    dims = bench.launch_shape(o, {"family": "sm90_conv_fprop"})["dims"]
    assert (dims["stride_h"], dims["pad_h"], dims["c"]) == (1, 0, 16 if block == 2 else 48)
    folded = torch.nn.functional.conv2d(o.x.permute(0, 3, 1, 2).float(), o.w.permute(0, 3, 1, 2).float())
    user = torch.nn.functional.conv2d(o.x_nchw().float(), o.w_kcrs().float(), None, block, pad)
    assert folded.shape == user.shape
    torch.testing.assert_close(folded, user, rtol=1e-3, atol=1e-3)


def test_settle_waits_for_a_window_of_agreeing_rounds() -> None:
    """Back-to-back rounds that agree are not steady while the timing still drifts across the
    window (a cold H200 timed 328 then 346 µs right after two agreeing rounds)."""
    from worker.gpu_bench import steady

    drifting = [(0.05 * i, 330.0 * (1 + 0.004 * i)) for i in range(12)]  # 0.4% a round, 4% over 0.55 s
    assert not steady(drifting, drifting[-1][0])
    flat = [(0.05 * i, 330.0 + (0.5 if i % 2 else 0.0)) for i in range(12)]
    assert steady(flat, flat[-1][0])
    assert not steady(flat[:5], flat[4][0])  # 0.2 s of rounds: the window is not full yet
    assert not steady([], 0.0)
    # rounds that scatter by ±1.5% without drifting (a 13 µs kernel's) settle within a second of
    # rounds, as settle() checks after each; a 2% step does not
    rng = random.Random(20)
    scattered = [(0.02 * i, 13.0 * (1 + rng.uniform(-0.015, 0.015))) for i in range(50)]
    assert any(steady(scattered[: n + 1], scattered[n][0]) for n in range(len(scattered)))
    step = [(0.05 * i, 13.0 * (1.02 if i >= 7 else 1.0)) for i in range(12)]
    assert not steady(step, step[-1][0])


def test_time_interleaved_takes_turns_and_summarizes_every_launch(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tuner's comparison (leaders against the library) and the timing-stability test: each
    group in turn, `rounds` times, every launch of a group in its summary."""
    from worker import gpu_bench

    order: list[str] = []
    clock = {"a": 10.0, "b": 20.0}

    def fake_time_launches(fns: list, reps: int) -> list[float]:
        order.append(fns[0])
        return [clock[fns[0]]] * reps

    monkeypatch.setattr(gpu_bench, "time_launches", fake_time_launches)
    out = gpu_bench.time_interleaved({"A": ["a"], "B": ["b"]}, reps=4, rounds=3)
    assert order == ["a", "b"] * 3
    assert out["A"]["median_us"] == 10.0 and out["B"]["median_us"] == 20.0


def test_first_pass_launches_fit_a_gpu_time_budget_and_long_kernels_keep_twenty() -> None:
    from worker.gpu_bench import first_pass_reps

    assert first_pass_reps(60, 34.0) == 60  # bert-base.ffn1: every launch
    assert first_pass_reps(60, 272.0) == 60  # llama7b.qkv: 60 x 272 us = 16 ms
    assert first_pass_reps(60, 1490.0) == 21  # square.8192: 30 ms of launches
    assert first_pass_reps(60, 50_000.0) == 20  # never under twenty
    assert first_pass_reps(8, 50_000.0) == 8  # a plan asking for fewer gets what it asked
