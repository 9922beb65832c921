"""The GEMM a kernel actually runs for a spec (a Conv2d is tuned as its implicit GEMM later)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from service.specs.epilogues import Epilogue
from service.specs.gemm import DType, GemmSpec, Layout

if TYPE_CHECKING:
    from worker.kernels.config import KernelConfig


def round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


@dataclass(frozen=True)
class GemmProblem:
    m: int
    n: int
    k: int
    batch: int
    dtype: DType
    layout_a: Layout
    layout_b: Layout
    epilogue: Epilogue

    @classmethod
    def from_spec(cls, spec: GemmSpec) -> GemmProblem:
        return cls(spec.m, spec.n, spec.k, spec.batch, spec.dtype, spec.layout_a, spec.layout_b, spec.epilogue)

    @property
    def flops(self) -> int:
        return 2 * self.m * self.n * self.k * self.batch

    def padded(self, multiple: int) -> GemmProblem:
        """The problem with K and N zero-padded up to a multiple (the client pads A's and W's
        columns, W's rows and the bias; it reads D's first N columns). M never needs it: no
        operand's rows run along M in the row-major A / nn.Linear W layout. 0: as given."""
        if not multiple:
            return self
        return replace(self, k=round_up(self.k, multiple), n=round_up(self.n, multiple))

    def as_run_by(self, cfg: KernelConfig) -> GemmProblem:
        """The problem in the frame a config's kernel runs it: K/N padded as its launch contract
        asks, M and N exchanged when it swaps operands (the rules and the cost model judge that)."""
        q = self.padded(cfg.pad_kn)
        return replace(q, m=q.n, n=q.m) if cfg.swap_ab else q

    def leading_dims(self) -> tuple[int, int, int]:
        """Elements between rows of A, B and D: what 128-bit alignment is about."""
        lda = self.k if self.layout_a is Layout.row else self.m
        ldb = self.n if self.layout_b is Layout.row else self.k
        return lda, ldb, self.n

    def max_alignment(self, element_bytes: int = 2) -> tuple[int, int, int]:
        """Largest vector width (elements, up to 128 bits) each operand's rows allow."""
        widest = 16 // element_bytes
        out = []
        for ld in self.leading_dims():
            a = widest
            while a > 1 and ld % a:
                a //= 2
            out.append(a)
        return out[0], out[1], out[2]
