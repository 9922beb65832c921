"""Conv2d forward (fprop) problem, tuned as an implicit GEMM over NHWC activations and KRSC filters."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from service.specs.epilogues import Epilogue
from service.specs.gemm import DType

MAX_BATCH = 4096
MAX_SPATIAL = 16384
MAX_CHANNELS = 65536
MAX_FILTER = 31


def output_hw(h: int, w: int, r: int, s: int, stride: Sequence[int], padding: Sequence[int],
              dilation: Sequence[int]) -> tuple[int, int]:
    """(P, Q) of a convolution's output: the one formula every conv path here uses."""
    p = (h + 2 * padding[0] - dilation[0] * (r - 1) - 1) // stride[0] + 1
    q = (w + 2 * padding[1] - dilation[1] * (s - 1) - 1) // stride[1] + 1
    return p, q


class ConvLayout(StrEnum):
    NHWC = "NHWC"
    NCHW = "NCHW"


def _pair(value: object) -> object:
    """`stride: 2` and `stride: [2, 2]` mean the same problem; store the pair."""
    if isinstance(value, bool):
        raise ValueError("expected an int or an [h, w] pair")
    if isinstance(value, int):
        return (value, value)
    if isinstance(value, list | tuple) and len(value) == 2:
        return tuple(value)
    raise ValueError("expected an int or an [h, w] pair")


def _bounded_pair(lo: int, hi: int) -> object:
    return Annotated[
        tuple[Annotated[int, Field(ge=lo, le=hi)], Annotated[int, Field(ge=lo, le=hi)]],
        BeforeValidator(_pair),
    ]


Stride = _bounded_pair(1, 64)
Padding = _bounded_pair(0, 64)
Dilation = _bounded_pair(1, 64)


class Conv2dSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    op: Literal["conv2d"] = "conv2d"
    n: int = Field(ge=1, le=MAX_BATCH)
    h: int = Field(ge=1, le=MAX_SPATIAL)
    w: int = Field(ge=1, le=MAX_SPATIAL)
    c: int = Field(ge=1, le=MAX_CHANNELS)
    k: int = Field(ge=1, le=MAX_CHANNELS)
    r: int = Field(ge=1, le=MAX_FILTER)
    s: int = Field(ge=1, le=MAX_FILTER)
    stride: Stride = (1, 1)  # type: ignore[valid-type]
    padding: Padding = (0, 0)  # type: ignore[valid-type]
    dilation: Dilation = (1, 1)  # type: ignore[valid-type]
    groups: int = Field(default=1, ge=1, le=MAX_CHANNELS, description="Only dense convolution (groups=1) is generated today.")
    layout: ConvLayout = ConvLayout.NHWC
    dtype: DType = DType.f16
    epilogue: Epilogue = Epilogue.none

    @field_validator("groups")
    @classmethod
    def _dense_only(cls, groups: int) -> int:
        if groups != 1:
            raise ValueError("groups > 1 (grouped or depthwise convolution) is not supported: no template generates it")
        return groups

    @field_validator("epilogue")
    @classmethod
    def _one_source_operand(cls, epilogue: Epilogue) -> Epilogue:
        parts = epilogue.parts
        if parts.bias and parts.residual:
            raise ValueError(f"epilogue {epilogue.value!r} is not generated for conv2d: the conv epilogue has one "
                             "source operand (a bias or a residual, not both)")
        return epilogue

    @model_validator(mode="after")
    def _output_not_empty(self) -> Conv2dSpec:
        p, q = self.output_hw
        if p < 1 or q < 1:
            raise ValueError(
                f"output would be empty ({p}x{q}): the dilated filter is larger than the padded input"
            )
        return self

    @property
    def output_hw(self) -> tuple[int, int]:
        return output_hw(self.h, self.w, self.r, self.s, self.stride, self.padding, self.dilation)

    @property
    def implicit_gemm_mnk(self) -> tuple[int, int, int]:
        """Forward conv as GEMM: M = N·P·Q output pixels, N = K filters, K = C·R·S reduction."""
        p, q = self.output_hw
        return self.n * p * q, self.k, self.c * self.r * self.s

    @property
    def flops(self) -> int:
        m, n, k = self.implicit_gemm_mnk
        return 2 * m * n * k
