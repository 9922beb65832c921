"""kiln::linear and KilnLinear on the CPU: the library fallback is exact, untuned specs are submitted
for background tuning, and a service outage never breaks the forward pass. (The GPU kernel path is
tested in tests/gpu/.)"""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from service.client import KernelCache, KilnClient  # noqa: E402
from tests.system.conftest import ADMIN, start_service  # noqa: E402
from worker.runtime.torch_ops import (  # noqa: E402
    KernelRegistry,
    KilnConv2dModule,
    KilnLinear,
    reference_linear,
    set_registry,
)


def test_module_matches_torch_without_kiln() -> None:
    set_registry(None)
    lin = torch.nn.Linear(64, 32)
    kl = KilnLinear.from_linear(lin, activation="gelu")
    x = torch.randn(4, 7, 64)
    assert kl.epilogue == "bias_gelu"
    torch.testing.assert_close(kl(x), torch.nn.functional.gelu(lin(x), approximate="tanh"))
    with pytest.raises(ValueError):
        KilnLinear(8, 8, activation="tanh")
    with pytest.raises(ValueError):
        reference_linear(x, lin.weight, lin.bias, "erf_gelu")


@pytest.mark.slow
def test_untuned_shapes_are_submitted_and_outages_fall_back(tmp_path: Path) -> None:
    service = start_service(f"sqlite:///{tmp_path / 'kiln.db'}", tmp_path)
    try:
        client = KilnClient(service.url, ADMIN, cache=KernelCache(tmp_path / "c"))
        reg = KernelRegistry(client)
        assert reg.gemm(4096, 768, 3072, torch.float16, "bias") is None
        assert reg.submitted == [{"op": "gemm", "m": 4096, "n": 768, "k": 3072, "dtype": "f16", "epilogue": "bias"}]
        assert reg.gemm(4096, 768, 3072, torch.float16, "bias") is None and len(reg.submitted) == 1  # memoised
        assert reg.conv2d((32, 64, 56, 56), (64, 64, 3, 3), (1, 1), (1, 1), (1, 1), torch.float16, "bias_relu") is None
        assert reg.submitted[-1] == {"op": "conv2d", "n": 32, "h": 56, "w": 56, "c": 64, "k": 64, "r": 3, "s": 3,
                                     "stride": [1, 1], "padding": [1, 1], "dilation": [1, 1], "dtype": "f16",
                                     "epilogue": "bias_relu"}
        with service.client() as c:
            assert [j["state"] for j in c.get("/jobs").json()] == ["queued", "queued"]
        client.close()
    finally:
        service.stop()
    down = KernelRegistry(KilnClient("http://127.0.0.1:9", ADMIN, cache=KernelCache(tmp_path / "c2")))
    assert down.gemm(128, 128, 128, torch.float16, "none") is None  # no exception


def test_decided_shapes_cost_a_dictionary_lookup(monkeypatch: pytest.MonkeyPatch) -> None:
    """Measured on the H200: computing the spec key on every forward call made a BERT layer 12x
    slower than eager (host-bound). After the first call per shape, nothing but a dict lookup."""
    import time

    import worker.runtime.torch_ops as ops

    calls = []
    reg = KernelRegistry(KilnClient("http://127.0.0.1:9", ADMIN), submit_untuned=False)
    monkeypatch.setattr(ops, "local_key", lambda *a: calls.append(a) or "k" * 64)
    monkeypatch.setattr(reg, "_resolve", lambda problem, kind: None)
    assert reg.gemm(64, 64, 64, torch.float16, "bias") is None
    t = time.perf_counter()
    for _ in range(10000):
        reg.gemm(64, 64, 64, torch.float16, "bias")
    per_call_us = (time.perf_counter() - t) / 10000 * 1e6
    assert len(calls) == 1
    assert per_call_us < 20, per_call_us


def test_conv_module_matches_torch_without_kiln() -> None:
    set_registry(None)
    conv = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)
    kc = KilnConv2dModule.from_conv(conv, activation="hardswish")
    x = torch.randn(2, 3, 17, 19)
    assert kc.epilogue == "bias_hardswish"
    torch.testing.assert_close(kc(x), torch.nn.functional.hardswish(conv(x)))
    with pytest.raises(ValueError):
        KilnConv2dModule.from_conv(torch.nn.Conv2d(8, 8, 3, groups=2))
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():  # the fake implementation agrees on the output shape (torch.compile needs it)
        fake = torch.ops.kiln.conv2d(torch.empty(2, 3, 17, 19), torch.empty(8, 3, 3, 3), None, [2, 2], [1, 1], [1, 1], "none")
    assert tuple(fake.shape) == tuple(conv(x).shape)


def test_compiled_module_goes_through_the_custom_op() -> None:
    """Eager calls skip the custom op's Python dispatch; under torch.compile the module traces to
    `kiln::linear` (one opaque op with a fake implementation), and computes the same."""
    set_registry(None)
    lin = torch.nn.Linear(64, 32)
    kl = KilnLinear.from_linear(lin, activation="silu")
    x = torch.randn(5, 64)
    seen: list[str] = []

    def backend(gm: torch.fx.GraphModule, _inputs: list[torch.Tensor]):  # type: ignore[no-untyped-def]
        seen.extend(str(n.target) for n in gm.graph.nodes if n.op == "call_function")
        return gm.forward

    compiled = torch.compile(kl, backend=backend, fullgraph=True)
    torch.testing.assert_close(compiled(x), torch.nn.functional.silu(lin(x)))
    assert any("kiln.linear" in t for t in seen)
