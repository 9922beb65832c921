"""The convolution a kernel actually runs for a Conv2d spec: NHWC, channels padded or not.

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

    @classmethod
    def from_spec(cls, spec: Conv2dSpec) -> ConvProblem:
        def pair(v: Any) -> tuple[int, int]:
            return int(v[0]), int(v[1])

        return cls(spec.n, spec.h, spec.w, spec.c, spec.k, spec.r, spec.s, pair(spec.stride), pair(spec.padding),
                   pair(spec.dilation), spec.dtype, spec.epilogue)

    def padded(self, multiple: int) -> ConvProblem:
        """Channels zero-padded to a multiple (0, or C already a multiple: as given)."""
        return replace(self, pad_c=multiple if multiple and self.c % multiple else 0)

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
        return 2 * self.n * p * q * self.k * self.c * self.r * self.s

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
