"""One C++ call that says whether a call's tensors look exactly like the ones a launch was checked on.

Why: from Python every torch attribute query costs 0.1-0.3 µs of host time, and the ~20 a GEMM's
operands need (dtype, device, contiguity and shape of four or five tensors) were most of a checked
call's host time. Dynamo's TensorGuards, what torch.compile runs before it reuses a compiled graph,
compares dtype, device, sizes, strides, requires_grad and dispatch keys of many tensors in one C++
loop (~0.4 µs for five on a CPU where the Python checks took 1.0). A call whose tensors pass the
guard of an earlier, fully checked call needs no per-attribute checks: equal sizes and strides
mean the same shape and the same row-major layout. Not compared: the address and storage offset,
which the caller reads per call anyway (`data_ptr()`) and checks for alignment itself.

TensorGuards is torch-internal: where it is missing or refuses the tensors (another torch, or a
test double), `OperandGuard.check` is always False and callers run their full checks every call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

# Stands in for an operand the call did not give (None): the guard then also pins which are given.
ABSENT = torch.empty(0)


def _never(*tensors: Any) -> bool:
    return False


def _tensor_guards() -> Any:
    try:
        from torch._C._dynamo.guards import TensorGuards
    except (ImportError, AttributeError):
        return None
    return TensorGuards


_TENSOR_GUARDS = _tensor_guards()


class OperandGuard:
    """`check(*tensors)` is True when the tensors have the dtype, device, sizes, strides,
    requires_grad and dispatch keys the guard was built from (None given as ABSENT)."""

    __slots__ = ("check",)

    def __init__(self, tensors: tuple[Any, ...]) -> None:
        self.check: Callable[..., bool] = _never
        if _TENSOR_GUARDS is None or not all(type(t) is torch.Tensor or isinstance(t, torch.nn.Parameter)
                                               for t in tensors):
            return
        try:
            guards = _TENSOR_GUARDS(*tensors, dynamic_dims_sizes=None, dynamic_dims_strides=None)
        except (TypeError, RuntimeError):  # a torch whose TensorGuards takes other arguments
            return
        self.check = guards.check

    @property
    def active(self) -> bool:
        return self.check is not _never


def given(t: torch.Tensor | None) -> torch.Tensor:
    return ABSENT if t is None else t
