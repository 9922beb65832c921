"""Launch Kiln GEMM kernels on PyTorch tensors, as easily as calling F.linear.

    kernel = KilnGemm.from_result(cubin, result)        # or KilnGemm.lookup(client, problem)
    y = kernel(x, weight, bias)                          # D = epilogue(x @ weight.T + bias)

Per shape, once: the cubin's params builder runs (one device round trip), outside any CUDA graph
capture. Per call, on the host only: input checks, pointer patching (memoised per pointer set, so
static buffers cost a dictionary lookup), one cuLaunchKernelEx on torch's current stream, which
is also what makes calls capturable into CUDA graphs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NoReturn

import torch

from worker.kernels.problem import round_up
from worker.runtime.launcher import LoadedKernel, PackedArgs, PreparedLaunch
from worker.runtime.operand_guard import ABSENT, OperandGuard, given
from worker.runtime.torch_prepare import ShapePrep, raw_stream

TORCH_DTYPE = {"f16": torch.float16, "bf16": torch.bfloat16}


class KernelInputError(ValueError):
    """The tensors do not match what the kernel was built for; nothing was launched."""


def check_tensors(tensors: dict[str, torch.Tensor | None], dtype: torch.dtype, *, row_major: bool) -> None:
    """Device and dtype for every operand given; with row_major, also contiguous and 16-byte aligned
    (what the kernel's vector loads and TMA descriptors assume)."""
    for name, t in tensors.items():
        if t is None:
            continue
        if not t.is_cuda:
            raise KernelInputError(f"{name} must be a CUDA tensor")
        if t.dtype != dtype:
            raise KernelInputError(f"{name} is {t.dtype}, the kernel takes {dtype}")
        if row_major and not t.is_contiguous():
            raise KernelInputError(f"{name} must be contiguous (row-major)")
        if row_major and t.data_ptr() % 16:
            raise KernelInputError(f"{name} must start on a 16-byte boundary")


def checked_address(t: torch.Tensor, name: str, dtype: torch.dtype, device: int) -> int:
    """The address of a row-major operand, after the checks its vector and TMA loads depend on.
    Four cheap tensor queries: on the per-call path every torch attribute costs ~0.3 µs of host time."""
    ptr = t.data_ptr()
    if t.dtype != dtype:
        raise KernelInputError(f"{name} is {t.dtype}, the kernel takes {dtype}")
    if t.get_device() != device:
        raise KernelInputError(f"{name} must be a CUDA tensor on cuda:{device}, like x")
    if ptr % 16 or not t.is_contiguous():
        raise KernelInputError(f"{name} must be contiguous (row-major)" if not t.is_contiguous()
                               else f"{name} must start on a 16-byte boundary")
    return ptr


def padded_kn(k: int, n: int, multiple: int) -> tuple[int, int]:
    return round_up(k, multiple), round_up(n, multiple)


def pad_parameters(weight: torch.Tensor, bias: torch.Tensor | None, kp: int,
                   np_: int) -> tuple[torch.Tensor, torch.Tensor | None]:
    """W[N, K] → W[Np, Kp] and bias[N] → bias[Np], zero-filled (padded rows produce columns the
    caller drops; padded K columns multiply zeros)."""
    n, k = weight.shape
    wp = torch.nn.functional.pad(weight, (0, kp - k, 0, np_ - n)).contiguous()
    bp = torch.nn.functional.pad(bias, (0, np_ - n)).contiguous() if bias is not None else None
    return wp, bp


def pad_activations(x: torch.Tensor, residual: torch.Tensor | None, kp: int,
                    np_: int) -> tuple[torch.Tensor, torch.Tensor | None]:
    """x[M, K] → x[M, Kp] and residual[M, N] → residual[M, Np], per call (they change every call)."""
    xp = torch.nn.functional.pad(x, (0, kp - x.shape[1])) if kp != x.shape[1] else x
    rp = residual
    if residual is not None and np_ != residual.shape[1]:
        rp = torch.nn.functional.pad(residual, (0, np_ - residual.shape[1]))
    return xp, rp


@dataclass(frozen=True, slots=True)
class CheckedShape:
    """Operands checked in full once: the guard that recognises tensors like them, and what a call
    with them launches."""

    guard: OperandGuard
    prepared: PreparedLaunch
    index: int
    device: torch.device
    out_shape: tuple[int, int]


class KilnGemm:
    def __init__(self, cubin: bytes, launch: dict[str, Any], spec: dict[str, Any]) -> None:
        if spec.get("op") != "gemm":
            raise ValueError("KilnGemm runs GEMM kernels")
        if spec.get("layout_a", "row") != "row" or spec.get("layout_b", "col") != "col":
            raise ValueError("KilnGemm takes x[M,K] row-major and weight[N,K] (nn.Linear layout)")
        self.spec = spec
        self.launch = launch
        self.kernel = LoadedKernel(cubin, launch)
        self.dtype = TORCH_DTYPE[spec.get("dtype", "f16")]
        self.alignment = tuple(launch.get("alignment", (8, 8, 8)))
        self._k_multiple = max(self.alignment[0], self.alignment[1])  # alignments are powers of two
        self._n_multiple = self.alignment[2]
        self.epilogue = launch["epilogue"]
        self.alpha = float(spec.get("alpha", 1.0))
        self.beta = float(spec.get("beta", 0.0))
        self._prep = ShapePrep(self.kernel, launch.get("runtime"))
        self.pad = int((launch.get("gemm_padding") or {}).get("pad_k_and_n_to", 0))
        self._padded_key: tuple[int, ...] | None = None
        self._padded_params_cache: tuple[torch.Tensor, torch.Tensor | None] = (torch.empty(0), None)
        self._shapes: dict[tuple[Any, ...], CheckedShape] = {}  # operand shapes checked in full, with their guards
        self._last: CheckedShape | None = None  # the record the previous call used: tried first

    @classmethod
    def from_result(cls, cubin: bytes, result: dict[str, Any], meta: dict[str, Any]) -> KilnGemm:
        launch = {**meta["launch"], "runtime": (result.get("launch") or {}).get("runtime", meta["launch"]["runtime"])}
        return cls(cubin, launch, result["spec"])

    def prepare(self, m: int, n: int, k: int, device: torch.device | None = None) -> PreparedLaunch:
        """Build params for a shape (one device round trip). Call before capturing a CUDA graph."""
        device = device or torch.device("cuda", torch.cuda.current_device())
        return self._prep.get((m, n, k), {"m": m, "n": n, "k": k}, device, alpha=self.alpha, beta=self.beta,
                              label=f"shape {m}x{n}x{k}")

    def __call__(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None,
                 residual: torch.Tensor | None = None, out: torch.Tensor | None = None) -> torch.Tensor:
        """D = epilogue(x @ weight.T + bias [+ residual]). A kernel tuned on padded K/N (its launch
        contract says `gemm_padding`) gets zero-padded operands: weight and bias once per version,
        x and residual per call; the result is D's first N columns."""
        n_caller, into = 0, None  # padded launches: the caller's N, and where the caller wants D
        if self.pad and x.dim() == 2 and weight.dim() == 2:
            k, n = x.shape[1], weight.shape[0]
            kp, np_ = padded_kn(k, n, self.pad)
            if (kp, np_) != (k, n):
                weight, bias = self._padded_params(weight, bias, kp, np_)
                x, residual = pad_activations(x, residual, kp, np_)
                n_caller, into, out = n, out, None
        p, ws, pointers, index, y = self._checked(x, weight, bias, residual, out)
        self.kernel.launch_args(p, self._prep.packed(p, pointers), raw_stream(index), ws)
        if not n_caller:
            return y
        return into.copy_(y[:, :n_caller]) if into is not None else y[:, :n_caller]

    def _padded_params(self, weight: torch.Tensor, bias: torch.Tensor | None, kp: int,
                       np_: int) -> tuple[torch.Tensor, torch.Tensor | None]:
        key = (weight.data_ptr(), weight._version, bias.data_ptr() if bias is not None else 0,
               bias._version if bias is not None else 0, kp, np_)
        if self._padded_key != key:
            self._padded_key, self._padded_params_cache = key, pad_parameters(weight, bias, kp, np_)
        return self._padded_params_cache

    def bind(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None,
             residual: torch.Tensor | None = None, out: torch.Tensor | None = None) -> BoundGemm:
        """Check the operands once and return a launcher that only launches.

        For callers whose buffers are static between calls, as in code an ML compiler generates
        or a serving loop with preallocated activations: every call then costs the launch alone
        (the checks are most of a checked call's host time on slow hosts). Like a CUDA graph node
        it holds the tensors, and it trusts that their storage, shape and layout stay as they were
        at bind (an in-place `resize_`, `set_` or `as_strided_` voids it; writing new values into
        them is what it is for)."""
        if self.pad and x.dim() == 2 and weight.dim() == 2 and padded_kn(x.shape[1], weight.shape[0], self.pad) != (x.shape[1], weight.shape[0]):
            raise KernelInputError("this kernel pads K and N per call: call it instead of binding it")
        p, ws, pointers, index, out = self._checked(x, weight, bias, residual, out)
        return BoundGemm(self, p, self._prep.packed(p, pointers), ws, index, (x, weight, bias, residual, out))

    def _checked(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None,
                 residual: torch.Tensor | None,
                 out: torch.Tensor | None) -> tuple[PreparedLaunch, int, tuple[int, ...], int, torch.Tensor]:
        """Checks every operand (dtype, device, row-major, 16-byte aligned, shapes); returns the
        shape's prepared launch, its workspace, the addresses to patch in (A, B, C, D, bias,
        workspace), the device index and the output (allocated here when not given).

        The per-call path: when the operands look exactly like those of an earlier call that was
        fully checked (one C++ guard call, `OperandGuard`), only the addresses are read and their
        alignment checked; otherwise every check runs (`_checked_shape`)."""
        last = self._last
        if last is None or not last.guard.check(x, weight, ABSENT if bias is None else bias,
                                                ABSENT if residual is None else residual, ABSENT if out is None else out):
            last = self._checked_shape(x, weight, bias, residual, out)
        if out is None:
            out = torch.empty(last.out_shape, dtype=self.dtype, device=last.device)
        a_ptr, b_ptr, d_ptr = x.data_ptr(), weight.data_ptr(), out.data_ptr()
        bias_ptr = bias.data_ptr() if bias is not None else 0
        c_ptr = residual.data_ptr() if residual is not None else 0
        if (a_ptr | b_ptr | d_ptr | bias_ptr | c_ptr) & 15:
            self._explain(x, weight, bias, residual, out, last.index)
        p = last.prepared
        ws = self._prep.workspace(p)  # per call: preparing a larger shape reallocates it
        return p, ws, (a_ptr, b_ptr, c_ptr, d_ptr, bias_ptr, ws), last.index, out

    def _checked_shape(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None,
                       residual: torch.Tensor | None, out: torch.Tensor | None) -> CheckedShape:
        """The operands' shape, checked in full: an earlier call's record when its guard accepts
        these tensors, else every check (one boolean expression over the fewest tensor queries
        that decide it, and only when it fails the operand-by-operand checks that name what is
        wrong) and a new record with a guard built from these tensors."""
        key = (x.shape, weight.shape, bias is None, residual is None, out is None)
        known = self._shapes.get(key)
        if known is not None and known.guard.check(x, weight, given(bias), given(residual), given(out)):
            self._last = known
            return known
        index = x.get_device()
        xs, ws_ = x.shape, weight.shape
        if index < 0 or len(xs) != 2 or len(ws_) != 2 or xs[1] != ws_[1]:
            self._explain(x, weight, bias, residual, out, index)
        (m, k), n = xs, ws_[0]
        dtype = self.dtype
        ok = (x.dtype is dtype and weight.dtype is dtype and (out is None or out.dtype is dtype)
              and weight.get_device() == index and (out is None or out.get_device() == index)
              and x.is_contiguous() and weight.is_contiguous() and (out is None or out.is_contiguous())
              and (out is None or out.shape == (m, n))
              and not (k % self._k_multiple or n % self._n_multiple))
        if ok and bias is not None:
            ok = (self.epilogue["bias"] and bias.dtype is dtype and bias.get_device() == index and bias.is_contiguous()
                  and bias.shape == (n,))
        elif ok:
            ok = not self.epilogue["bias"]
        if ok and residual is not None:
            ok = (self.epilogue["residual"] and residual.dtype is dtype and residual.get_device() == index and residual.is_contiguous()
                  and residual.shape == (m, n))
        elif ok:
            ok = not self.epilogue["residual"]
        if not ok:
            self._explain(x, weight, bias, residual, out, index)
        p = self._prep.prepared.get((m, n, k, index)) or self.prepare(m, n, k, x.device)
        record = CheckedShape(OperandGuard((x, weight, given(bias), given(residual), given(out))), p, index,
                              x.device, (m, n))
        if len(self._shapes) >= 64:
            self._shapes.pop(next(iter(self._shapes)))
        self._shapes[key] = self._last = record
        return record

    def _explain(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None,
                 residual: torch.Tensor | None, out: torch.Tensor | None, index: int) -> NoReturn:
        """Operand by operand, the check that failed, as a KernelInputError naming the operand."""
        if index < 0:
            raise KernelInputError("x must be a CUDA tensor")
        xs, ws_ = x.shape, weight.shape
        if len(xs) != 2 or len(ws_) != 2 or xs[1] != ws_[1]:
            raise KernelInputError(f"shapes x{tuple(xs)} and weight{tuple(ws_)} do not make x @ weight.T")
        (m, k), n = xs, ws_[0]
        if k % self._k_multiple or n % self._n_multiple:
            raise KernelInputError(f"K={k} and N={n} must be multiples of the kernel's alignment {self.alignment}")
        for name, t in (("x", x), ("weight", weight)):
            checked_address(t, name, self.dtype, index)
        if bias is not None:
            if not self.epilogue["bias"]:
                raise KernelInputError("this kernel has no bias in its epilogue: tune the spec with one, or add it yourself")
            if bias.shape != (n,):
                raise KernelInputError(f"bias must have shape ({n},)")
            checked_address(bias, "bias", self.dtype, index)
        elif self.epilogue["bias"]:
            raise KernelInputError(f"this kernel fuses a bias: pass bias of shape ({n},)")
        if residual is not None:
            if not self.epilogue["residual"]:
                raise KernelInputError("this kernel adds no residual: tune the spec with one, or add it yourself")
            if residual.shape != (m, n):
                raise KernelInputError(f"residual must have shape ({m}, {n})")
            checked_address(residual, "residual", self.dtype, index)
        elif self.epilogue["residual"]:
            raise KernelInputError(f"this kernel adds a residual: pass residual of shape ({m}, {n})")
        if out is not None:
            if out.shape != (m, n):
                raise KernelInputError(f"out must have shape ({m}, {n})")
            checked_address(out, "out", self.dtype, index)
        raise KernelInputError("the operands do not match what the kernel was built for")


class BoundGemm:
    """One KilnGemm call with its operands fixed (`KilnGemm.bind`): each call launches on torch's
    current stream and returns `out`. Capturable into CUDA graphs like the checked call."""

    def __init__(self, gemm: KilnGemm, prepared: PreparedLaunch, args: PackedArgs, workspace: int, index: int,
                 tensors: tuple[torch.Tensor | None, ...]) -> None:
        self._launch = gemm.kernel.launch_args
        self._prepared, self._args, self._workspace, self._index = prepared, args, workspace, index
        self._tensors = tensors  # kept alive: the packed arguments point at their storage
        self.out: torch.Tensor = tensors[-1]  # type: ignore[assignment]

    def __call__(self) -> torch.Tensor:
        self._launch(self._prepared, self._args, raw_stream(self._index), self._workspace)
        return self.out
