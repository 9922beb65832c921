"""The convolution a kernel actually runs for a Conv2d spec: NHWC, channels padded or not, and
for small-channel strided convs (the stem) possibly rewritten on a space-to-depth input.

A Conv2d fprop is tuned as its implicit GEMM (M = N·P·Q output pixels, N = K filters,
K = C·R·S). The GEMM view lets the GEMM pruning rules and cost model apply unchanged; the
conv-specific rules (worker/kernels/prune_conv.py) see the convolution itself.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from service.specs.conv2d import Conv2dSpec, output_hw
from service.specs.epilogues import Epilogue
from service.specs.gemm import DType, Layout
from worker.kernels.problem import GemmProblem, round_up


@dataclass(frozen=True)
class ConvProblem:
    n: int
    h: int
    w: int
    c: int
    k: int
    r: int
    s: int
    stride: tuple[int, int]
    padding: tuple[int, int]
    dilation: tuple[int, int]
    dtype: DType
    epilogue: Epilogue
    pad_c: int = 0  # channels padded to a multiple of this (0: as given)
    s2d: int = 0  # rewritten from a stride-s2d conv on a space-to-depth input (0: as given)
    useful_crs: int = 0  # the original C·R·S when rewritten (the work that counts)

    @classmethod
    def from_spec(cls, spec: Conv2dSpec) -> ConvProblem:
        def pair(v: Any) -> tuple[int, int]:
            return int(v[0]), int(v[1])

        return cls(spec.n, spec.h, spec.w, spec.c, spec.k, spec.r, spec.s, pair(spec.stride), pair(spec.padding),
                   pair(spec.dilation), spec.dtype, spec.epilogue)

    def padded(self, multiple: int) -> ConvProblem:
        """Channels zero-padded to a multiple (0, or C already a multiple: as given)."""
        return replace(self, pad_c=multiple if multiple and self.c % multiple else 0)

    def space_to_depth(self, block: int) -> ConvProblem:
        """The same convolution as a stride-1, unpadded one on a space-to-depth input.

        A stride-b conv over C channels equals a stride-1 conv over b·b·C channels of the input
        zero-padded and folded b×b pixels into channels, with the filter folded alike (R' =
        ceil(R/b) taps, the missing ones zero). The stem (7x7/2, C=3) becomes 4x4/1 over 12
        channels: a GEMM K of 192 (256 padded to 16 channels) instead of 147 spread over 49
        3-channel taps that no wide load or TMA box fits. worker/runtime/conv_transforms.py
        folds the tensors; the launch contract tells the client to.
        """
        if block <= 1:
            return self
        if self.stride != (block, block) or self.dilation != (1, 1) or self.s2d or self.pad_c:
            raise ValueError(f"space-to-depth {block} needs stride {block}, no dilation, an unrewritten problem")
        p, q = self.output_hw
        r, s_ = -(-self.r // block), -(-self.s // block)
        return replace(self, h=p + r - 1, w=q + s_ - 1, c=self.c * block * block, r=r, s=s_, stride=(1, 1),
                       padding=(0, 0), s2d=block, useful_crs=self.c * self.r * self.s)

    def rewritten(self, s2d: int, pad_c: int) -> ConvProblem:
        """What a kernel with these launch-contract transforms runs (space-to-depth, then padding)."""
        return self.space_to_depth(s2d).padded(pad_c)

    @property
    def kernel_c(self) -> int:
        """Channels the kernel sees (after the client's zero padding)."""
        return round_up(self.c, self.pad_c) if self.pad_c else self.c

    @property
    def output_hw(self) -> tuple[int, int]:
        return output_hw(self.h, self.w, self.r, self.s, self.stride, self.padding, self.dilation)

    @property
    def gemm(self) -> GemmProblem:
        """The implicit GEMM: A is the im2col'd activation (row-major), B the filters as W[K, C·R·S]."""
        p, q = self.output_hw
        return GemmProblem(self.n * p * q, self.k, self.kernel_c * self.r * self.s, 1, self.dtype, Layout.row,
                           Layout.col, self.epilogue)

    @property
    def is_pointwise(self) -> bool:
        """A 1x1, stride-1, unpadded conv over NHWC *is* a GEMM: x as [N·H·W, C] times w as [K, C]."""
        return ((self.r, self.s) == (1, 1) and self.stride == (1, 1) and self.padding == (0, 0)
                and self.dilation == (1, 1))

    @property
    def flops(self) -> int:
        """Useful work: padded channels are not counted."""
        p, q = self.output_hw
        return 2 * self.n * p * q * self.k * (self.useful_crs or self.c * self.r * self.s)

    def max_alignment(self, element_bytes: int = 2) -> tuple[int, int, int]:
        """Vector width for activations/filters (along C) and the output (along K)."""
        widest = 16 // element_bytes

        def best(extent: int) -> int:
            a = widest
            while a > 1 and extent % a:
                a //= 2
            return a

        return best(self.kernel_c), best(self.kernel_c), best(self.k)

    def builder_dims(self) -> dict[str, int]:
        """The integer arguments of the conv cubin's params builder (see launch_meta)."""
        p, q = self.output_hw
        return {"n": self.n, "h": self.h, "w": self.w, "c": self.kernel_c, "k": self.k, "r": self.r, "s": self.s,
                "p": p, "q": q, "pad_h": self.padding[0], "pad_w": self.padding[1], "stride_h": self.stride[0],
                "stride_w": self.stride[1], "dilation_h": self.dilation[0], "dilation_w": self.dilation[1]}
