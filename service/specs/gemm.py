"""GEMM problem: D[M,N] = epilogue(alpha · A[M,K] @ B[K,N] (+ beta · C)), batched over `batch`."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from service.specs.epilogues import Epilogue

MAX_DIM = 1 << 20  # 1M: larger than any real GEMM side; keeps M·N·K inside int64 and spec keys sane
MAX_BATCH = 4096


class DType(StrEnum):
    f16 = "f16"
    bf16 = "bf16"


class Layout(StrEnum):
    row = "row"
    col = "col"


class GemmSpec(BaseModel):
    """B "col" is a [K,N] column-major matrix, i.e. the [N,K] row-major weight of nn.Linear (the default)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    op: Literal["gemm"] = "gemm"
    m: int = Field(ge=1, le=MAX_DIM)
    n: int = Field(ge=1, le=MAX_DIM)
    k: int = Field(ge=1, le=MAX_DIM)
    batch: int = Field(default=1, ge=1, le=MAX_BATCH)
    dtype: DType = DType.f16
    layout_a: Layout = Layout.row
    layout_b: Layout = Layout.col
    layout_d: Literal["row"] = "row"
    epilogue: Epilogue = Epilogue.none
    alpha: float = Field(default=1.0, ge=-1e4, le=1e4, allow_inf_nan=False)
    beta: float = Field(default=0.0, ge=-1e4, le=1e4, allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _residual_defaults_beta_to_one(cls, data: object) -> object:
        """A residual_add epilogue without a beta means D = act(acc) + C, not + 0·C."""
        if isinstance(data, dict) and "beta" not in data and "residual_add" in str(data.get("epilogue", "")):
            return {**data, "beta": 1.0}
        return data

    @model_validator(mode="after")
    def _beta_needs_residual(self) -> GemmSpec:
        if self.beta != 0.0 and not self.epilogue.parts.residual:
            raise ValueError("beta is only meaningful with a residual_add epilogue (it scales the residual C)")
        return self

    @property
    def flops(self) -> int:
        return 2 * self.m * self.n * self.k * self.batch
