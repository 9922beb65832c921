"""The operand transforms a conv kernel's launch contract can ask of its client, in torch.

Two, applied in this order: space-to-depth (a stride-b conv over few channels becomes a stride-1
conv over b·b times as many, see ConvProblem.space_to_depth) and zero-padding of the channels to
a multiple (BOLT's 128-bit alignment). The client helper (torch_conv.KilnConv2d) and the
measurement process (gpu_bench_conv) both call these, so what is timed is what clients run.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from worker.kernels.problem import round_up


def pad_channels(x: torch.Tensor, pad_to: int) -> torch.Tensor:
    """Channels-last [..., C] → [..., round_up(C, pad_to)] contiguous, zeros appended (no copy
    when nothing is added and the tensor is already contiguous)."""
    c = x.shape[-1]
    cp = round_up(c, pad_to) if pad_to > 1 else c
    if cp != c:
        return F.pad(x, (0, cp - c)).contiguous()
    return x.contiguous()


def space_to_depth_input(x: torch.Tensor, block: int, padding: tuple[int, int], out_hw: tuple[int, int],
                         taps: tuple[int, int]) -> torch.Tensor:
    """NHWC [N, H, W, C] → [N, P+R'-1, Q+S'-1, b·b·C]: the conv's zero padding applied, then each
    b×b pixel block folded into channels (channel order: row in block, column in block, C).
    `taps` = (R', S'), the folded filter's size; `out_hw` = (P, Q)."""
    n, h, w, c = x.shape
    (p, q), (r2, s2), b = out_hw, taps, block
    hh, ww = b * (p + r2 - 1), b * (q + s2 - 1)
    # F.pad on the last three dims of NHWC: (C, W, H) pairs; negative amounts crop what no tap reads.
    xp = F.pad(x, (0, 0, padding[1], ww - w - padding[1], padding[0], hh - h - padding[0]))
    y = xp.view(n, hh // b, b, ww // b, b, c).permute(0, 1, 3, 2, 4, 5)
    return y.reshape(n, hh // b, ww // b, b * b * c)


def space_to_depth_filter(w: torch.Tensor, block: int) -> torch.Tensor:
    """KRSC [K, R, S, C] → [K, R', S', b·b·C] with R' = ceil(R/b): taps past R, S are zero."""
    k, r, s, c = w.shape
    b = block
    r2, s2 = -(-r // b), -(-s // b)
    wp = F.pad(w, (0, 0, 0, b * s2 - s, 0, b * r2 - r))
    y = wp.view(k, r2, b, s2, b, c).permute(0, 1, 3, 2, 4, 5)
    return y.reshape(k, r2, s2, b * b * c)


def kernel_input(x_nhwc: torch.Tensor, *, pad_to: int, block: int, padding: tuple[int, int],
                 out_hw: tuple[int, int], taps: tuple[int, int]) -> torch.Tensor:
    """The activation as the kernel reads it: folded (block > 1), then channel-padded."""
    if block > 1:
        x_nhwc = space_to_depth_input(x_nhwc, block, padding, out_hw, taps)
    return pad_channels(x_nhwc, pad_to)


def kernel_filter(w_krsc: torch.Tensor, *, pad_to: int, block: int) -> torch.Tensor:
    """The filter as the kernel reads it: folded (block > 1), then channel-padded."""
    if block > 1:
        w_krsc = space_to_depth_filter(w_krsc, block)
    return pad_channels(w_krsc, pad_to)
