"""The epilogue whitelist and its decomposition into bias / activation / residual parts."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Activation(StrEnum):
    identity = "identity"
    relu = "relu"
    gelu = "gelu"  # tanh approximation: the erf form slows epilogues several-fold
    silu = "silu"
    hardswish = "hardswish"
    sigmoid = "sigmoid"


class Epilogue(StrEnum):
    none = "none"
    bias = "bias"
    relu = "relu"
    bias_relu = "bias_relu"
    gelu = "gelu"
    bias_gelu = "bias_gelu"
    silu = "silu"
    bias_silu = "bias_silu"
    hardswish = "hardswish"
    bias_hardswish = "bias_hardswish"
    sigmoid = "sigmoid"
    bias_sigmoid = "bias_sigmoid"
    residual_add = "residual_add"
    bias_residual_add = "bias_residual_add"
    residual_add_relu = "residual_add_relu"
    bias_residual_add_relu = "bias_residual_add_relu"

    @property
    def parts(self) -> EpilogueParts:
        return _PARTS[self]


@dataclass(frozen=True)
class EpilogueParts:
    """D = post(act(alpha·acc + bias) + beta·residual): which pieces are present."""

    bias: bool
    activation: Activation
    residual: bool
    post_activation: Activation


def _decompose(name: str) -> EpilogueParts:
    bias = name.startswith("bias")
    rest = name.removeprefix("bias").removeprefix("_")
    residual = "residual_add" in rest
    post = Activation.relu if rest.endswith("residual_add_relu") else Activation.identity
    act = Activation.identity if residual or rest in ("", "none") else Activation(rest)
    return EpilogueParts(bias=bias, activation=act, residual=residual, post_activation=post)


_PARTS: dict[Epilogue, EpilogueParts] = {e: _decompose(e.value) for e in Epilogue}
