"""Problem specs: whitelists, bounds, defaults, canonical form and spec keys."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from service.specs import Conv2dSpec, GemmSpec, Target, TuneRequest, spec_key
from service.specs.epilogues import Activation, Epilogue
from service.specs.target import arches_for_capability
from service.versions import Toolchain

T = Target(arch="sm_90a")


def test_gemm_defaults_are_documented_values() -> None:
    g = GemmSpec(m=4096, n=768, k=3072)
    assert (g.batch, g.dtype, g.layout_a, g.layout_b, g.layout_d, g.epilogue, g.alpha, g.beta) == (
        1, "f16", "row", "col", "row", "none", 1.0, 0.0)


def test_key_ignores_field_order_and_default_spelling() -> None:
    a = {"op": "gemm", "m": 64, "n": 128, "k": 256, "epilogue": "bias"}
    b = dict(reversed(list(a.items())))
    c = {**a, "batch": 1, "dtype": "f16", "alpha": 1}
    keys = {spec_key(GemmSpec.model_validate(x), T) for x in (a, b, c)}
    assert len(keys) == 1


def test_conv_int_and_pair_are_the_same_problem() -> None:
    base = dict(n=32, h=56, w=56, c=64, k=64, r=3, s=3)
    a = Conv2dSpec(**base, stride=2, padding=1)
    b = Conv2dSpec(**base, stride=[2, 2], padding=(1, 1), dilation=1)
    assert spec_key(a, T) == spec_key(b, T)
    assert a.output_hw == (28, 28)


def test_key_changes_with_everything_that_changes_a_kernel() -> None:
    g = GemmSpec(m=64, n=128, k=256)
    base = spec_key(g, T)
    assert spec_key(GemmSpec(m=64, n=128, k=256, epilogue="relu"), T) != base
    assert spec_key(GemmSpec(m=64, n=128, k=256, dtype="bf16"), T) != base
    assert spec_key(g, Target(arch="sm_80")) != base
    assert spec_key(g, Target(arch="sm_90a", gpu="NVIDIA H200")) != base
    assert spec_key(g, T, Toolchain("2", "4.2.0.0", "13.0.88")) != spec_key(g, T, Toolchain("1", "4.2.0.0", "13.0.88"))
    assert spec_key(g, T, Toolchain("1", "4.3.0.0", "13.0.88")) != spec_key(g, T, Toolchain("1", "4.2.0.0", "13.0.88"))


@pytest.mark.parametrize("field,value", [
    ("m", 0), ("n", -1), ("k", 1 << 21), ("batch", 0), ("dtype", "f32"), ("dtype", "f16; system()"),
    ("layout_a", "diag"), ("layout_d", "col"), ("epilogue", "erf_gelu"), ("epilogue", "bias);asm(\"trap\""),
    ("alpha", float("nan")), ("unknown_field", 1),
])
def test_gemm_rejects_bad_fields_by_name(field: str, value: object) -> None:
    with pytest.raises(ValidationError) as info:
        GemmSpec.model_validate({"m": 8, "n": 8, "k": 8, field: value})
    assert field in json.dumps(info.value.errors(include_url=False), default=str)


def test_beta_without_residual_is_rejected_and_residual_defaults_beta_to_one() -> None:
    with pytest.raises(ValidationError, match="residual"):
        GemmSpec(m=8, n=8, k=8, beta=0.5)
    assert GemmSpec(m=8, n=8, k=8, epilogue="bias_residual_add").beta == 1.0


def test_conv_groups_unsupported_and_empty_output_rejected() -> None:
    with pytest.raises(ValidationError, match="groups > 1"):
        Conv2dSpec(n=1, h=8, w=8, c=8, k=8, r=3, s=3, groups=2)
    with pytest.raises(ValidationError, match="output would be empty"):
        Conv2dSpec(n=1, h=2, w=2, c=8, k=8, r=5, s=5)
    with pytest.raises(ValidationError):
        Conv2dSpec(n=1, h=8, w=8, c=8, k=8, r=3, s=3, stride=[1, 2, 3])


def test_epilogue_whitelist_decomposes() -> None:
    assert Epilogue.bias_gelu.parts.bias and Epilogue.bias_gelu.parts.activation is Activation.gelu
    assert Epilogue.residual_add_relu.parts.residual and Epilogue.residual_add_relu.parts.post_activation is Activation.relu
    assert not Epilogue.none.parts.bias and Epilogue.none.parts.activation is Activation.identity


def test_arch_whitelist_and_capability_mapping() -> None:
    with pytest.raises(ValidationError):
        Target(arch="sm_100a")
    assert arches_for_capability(9, 0) == ["sm_90", "sm_90a"]
    assert arches_for_capability(8, 6) == ["sm_80", "sm_86"]
    assert Target(arch="sm_90a", gpu="  NVIDIA   H200 ").gpu == "NVIDIA H200"
    with pytest.raises(ValidationError):
        Target(arch="sm_90a", gpu="H200\"; rm -rf /")


def test_request_is_a_discriminated_union_open_for_graphs() -> None:
    req = TuneRequest.model_validate({"problems": [{"op": "gemm", "m": 1, "n": 1, "k": 1},
                                                   {"op": "conv2d", "n": 1, "h": 3, "w": 3, "c": 1, "k": 1, "r": 1, "s": 1}]})
    assert [p.op for p in req.problems] == ["gemm", "conv2d"]
    with pytest.raises(ValidationError, match="op"):
        TuneRequest.model_validate({"problems": [{"op": "graph", "nodes": []}]})


@given(st.integers(1, 1 << 20), st.integers(1, 1 << 20), st.integers(1, 1 << 20),
       st.sampled_from(list(Epilogue)), st.sampled_from(["f16", "bf16"]))
def test_key_is_stable_under_shuffled_json(m: int, n: int, k: int, epi: Epilogue, dtype: str) -> None:
    fields = {"op": "gemm", "m": m, "n": n, "k": k, "epilogue": epi.value, "dtype": dtype}
    items = list(fields.items())
    random.shuffle(items)
    shuffled = json.loads(json.dumps(dict(items)))
    assert spec_key(GemmSpec.model_validate(fields), T) == spec_key(GemmSpec.model_validate(shuffled), T)


def test_dashboard_roofline_work_for_gemm_and_conv() -> None:
    from service.admin.routes import _work

    flops, moved = _work("gemm", {"m": 128, "n": 256, "k": 64})
    assert flops == 2 * 128 * 256 * 64 and moved == 2 * (128 * 64 + 256 * 64 + 128 * 256)
    conv = {"op": "conv2d", "n": 2, "h": 8, "w": 8, "c": 16, "k": 32, "r": 3, "s": 3, "padding": 1}
    flops, moved = _work("conv2d", conv)
    assert flops == 2 * (2 * 8 * 8) * 32 * (16 * 9)
    assert moved == 2 * (2 * 8 * 8 * 16 + 32 * 9 * 16 + 2 * 8 * 8 * 32)
