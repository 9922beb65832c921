"""KilnGemm's per-call operand checks (CPU, with tests/doubles/device_tensor.py): every mistake is
caught before a launch and the error names the operand; well-formed operands reach the launch
with their addresses in the launch contract's order (A, B, C, D, bias, workspace)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from tests.doubles.device_tensor import DeviceTensorDouble as T  # noqa: E402
from worker.runtime.operand_guard import ABSENT, OperandGuard, given  # noqa: E402
from worker.runtime.torch_gemm import CheckedShape, KernelInputError, KilnGemm  # noqa: E402

M, N, K = 64, 256, 128
PREPARED = object()


class _PrepDouble:
    """ShapePrep with the shape already prepared (no builder kernel to run) and no workspace."""

    def __init__(self) -> None:
        self.prepared = {(M, N, K, 0): PREPARED}

    def workspace(self, p: object) -> int:
        return 0


def gemm(*, bias: bool = True, residual: bool = False) -> KilnGemm:
    g = object.__new__(KilnGemm)  # no cubin to load: only the checks run
    g.dtype, g.alignment, g._k_multiple, g._n_multiple = torch.float16, (8, 8, 8), 8, 8
    g.epilogue = {"bias": bias, "residual": residual}
    g._prep = _PrepDouble()  # type: ignore[assignment]
    g._shapes, g._last = {}, None
    return g


def operands() -> dict[str, T]:
    return {"x": T.of(M, K, address=0x1000), "weight": T.of(N, K, address=0x2000),
            "bias": T.of(N, address=0x3000), "out": T.of(M, N, address=0x4000)}


def check(g: KilnGemm, **ops: T | None) -> tuple[object, ...]:
    o = operands() | ops
    return g._checked(o["x"], o["weight"], o["bias"], o.get("residual"), o["out"])  # type: ignore[arg-type]


def test_well_formed_operands_reach_the_launch_with_their_addresses() -> None:
    p, ws, pointers, index, out = check(gemm())
    assert p is PREPARED and ws == 0 and index == 0
    assert pointers == (0x1000, 0x2000, 0, 0x4000, 0x3000, 0)


@pytest.mark.parametrize(("ops", "message"), [
    ({"x": T.of(M, K, device_index=-1)}, "x must be a CUDA tensor"),
    ({"x": T.of(M, K + 8)}, r"do not make x @ weight\.T"),
    ({"x": T.of(M, K, dtype=torch.float32)}, "x is torch.float32"),
    ({"weight": T.of(N, K, dtype=torch.bfloat16)}, "weight is torch.bfloat16"),
    ({"weight": T.of(N, K, device_index=1)}, "weight must be a CUDA tensor on cuda:0"),
    ({"x": T.of(M, K, contiguous=False)}, "x must be contiguous"),
    ({"x": T.of(M, K, address=0x1002)}, "x must start on a 16-byte boundary"),
    ({"bias": T.of(N, contiguous=False)}, "bias must be contiguous"),
    ({"bias": T.of(N - 8)}, r"bias must have shape \(256,\)"),
    ({"bias": None}, "this kernel fuses a bias"),
    ({"out": T.of(M, N - 8)}, r"out must have shape \(64, 256\)"),
    ({"out": T.of(M, N, dtype=torch.float32)}, "out is torch.float32"),
    ({"out": T.of(M, N, address=0x4008)}, "out must start on a 16-byte boundary"),
])
def test_each_mistake_is_caught_and_names_its_operand(ops: dict[str, T | None], message: str) -> None:
    with pytest.raises(KernelInputError, match=message):
        check(gemm(), **ops)


def test_alignment_and_residual_contract() -> None:
    g = gemm()
    with pytest.raises(KernelInputError, match="multiples of the kernel's alignment"):
        g._checked(T.of(M, 100), T.of(N, 100), T.of(N), None, T.of(M, N))  # type: ignore[arg-type]
    with pytest.raises(KernelInputError, match="adds a residual"):
        check(gemm(residual=True))
    with pytest.raises(KernelInputError, match=r"residual must have shape \(64, 256\)"):
        check(gemm(residual=True), residual=T.of(M, 8))
    _, _, pointers, _, _ = check(gemm(residual=True), residual=T.of(M, N, address=0x5000))
    assert pointers[2] == 0x5000


def test_a_kernel_tuned_on_padded_k_and_n_gets_padded_operands_and_returns_the_callers_columns(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Launch contract `gemm_padding`: K and N zero-padded to the kernel's multiple before the
    checks; D comes back as the caller's N columns (into `out` when given)."""
    g = gemm()
    g.pad, g._padded_key = 8, None
    seen: dict[str, object] = {}

    def checked(x, weight, bias, residual, out):  # type: ignore[no-untyped-def]
        seen.update(x=tuple(x.shape), weight=tuple(weight.shape), bias=tuple(bias.shape), out=out)
        return PREPARED, 0, (), 0, torch.arange(4 * 16, dtype=torch.float16).view(4, 16)

    class _Launch:
        def launch_args(self, *args: object) -> None:
            seen["launched"] = True

    g._checked, g.kernel = checked, _Launch()  # type: ignore[method-assign,assignment]
    g._prep = type("P", (), {"packed": lambda self, p, ptrs: None})()  # type: ignore[assignment]
    monkeypatch.setattr("worker.runtime.torch_gemm.raw_stream", lambda index: 0)
    x, w, b = torch.ones(4, 12, dtype=torch.float16), torch.ones(10, 12, dtype=torch.float16), torch.ones(10, dtype=torch.float16)
    y = g(x, w, b)
    assert seen == {"x": (4, 16), "weight": (16, 16), "bias": (16,), "out": None, "launched": True}
    assert tuple(y.shape) == (4, 10) and float(y[1, 0]) == 16.0
    into = torch.empty(4, 10, dtype=torch.float16)
    assert g(x, w, b, out=into) is into and float(into[1, 0]) == 16.0


def test_a_bias_or_residual_the_kernel_does_not_fuse_is_refused_not_dropped() -> None:
    with pytest.raises(KernelInputError, match="no bias in its epilogue"):
        check(gemm(bias=False))
    with pytest.raises(KernelInputError, match="adds no residual"):
        check(gemm(), residual=T.of(M, N, address=0x5000))


def _record_for(g: KilnGemm, *tensors: torch.Tensor | None) -> CheckedShape:
    """What a fully checked call leaves behind, built from real (CPU) tensors: the double has no
    C++ side, so the guard is what decides here."""
    record = CheckedShape(OperandGuard(tuple(given(t) for t in tensors)), PREPARED, 0,  # type: ignore[arg-type]
                          torch.device("cpu"), (M, N))
    g._last = record
    return record


def test_operands_like_a_checked_call_skip_the_checks_and_others_get_them_all() -> None:
    g = gemm()
    x, w, b, y = (torch.zeros(M, K, dtype=torch.float16), torch.zeros(N, K, dtype=torch.float16),
                  torch.zeros(N, dtype=torch.float16), torch.zeros(M, N, dtype=torch.float16))
    _record_for(g, x, w, b, None, y)
    p, _, pointers, _, out = g._checked(x, w, b, None, y)  # same metadata: no per-tensor checks
    assert p is PREPARED and out is y and pointers[0] == x.data_ptr() and pointers[4] == b.data_ptr()
    # Other tensors with the same metadata pass too; only the addresses are read per call.
    x2 = torch.ones(M, K, dtype=torch.float16)
    assert g._checked(x2, w, b, None, y)[2][0] == x2.data_ptr()
    # Anything else goes through every check (here: CPU tensors, which the full checks refuse).
    for mistake in ({"x": x.t().contiguous().t()}, {"w": w.float()}, {"b": None}, {"y": y[:, :N - 8]}):
        ops = {"x": x, "w": w, "b": b, "y": y} | mistake
        with pytest.raises(KernelInputError):
            g._checked(ops["x"], ops["w"], ops["b"], None, ops["y"])


def test_a_misaligned_address_is_caught_even_when_the_guard_accepts() -> None:
    g = gemm()
    base = torch.zeros(M * K + 1, dtype=torch.float16)
    x, w, y = base[:M * K].view(M, K), torch.zeros(N, K, dtype=torch.float16), torch.zeros(M, N, dtype=torch.float16)
    b = torch.zeros(N, dtype=torch.float16)
    _record_for(g, x, w, b, None, y)
    shifted = base[1:].view(M, K)  # same sizes and strides, address 2 bytes on
    with pytest.raises(KernelInputError, match="16-byte boundary|CUDA tensor"):
        g._checked(shifted, w, b, None, y)


@pytest.mark.parametrize("change", ["dtype", "shape", "strides", "requires_grad", "absent"])
def test_operand_guard_tells_metadata_apart(change: str) -> None:
    x = torch.zeros(4, 8, dtype=torch.float16)
    guard = OperandGuard((x, ABSENT))
    if not guard.active:
        pytest.skip("this torch has no TensorGuards: every call runs the full checks")
    assert guard.check(torch.ones(4, 8, dtype=torch.float16), ABSENT)
    other = {"dtype": (x.float(), ABSENT), "shape": (torch.zeros(4, 16, dtype=torch.float16), ABSENT),
             "strides": (torch.zeros(8, 4, dtype=torch.float16).t(), ABSENT),
             "requires_grad": (x.clone().requires_grad_(), ABSENT), "absent": (x, x)}[change]
    assert not guard.check(*other)


def test_operand_guard_without_real_tensors_never_accepts() -> None:
    guard = OperandGuard((T.of(M, K), ABSENT))  # type: ignore[arg-type]
    assert not guard.active and not guard.check(T.of(M, K), ABSENT)
