"""Launch Kiln GEMM kernels on PyTorch tensors, as easily as calling F.linear.

    kernel = KilnGemm.from_result(cubin, result)        # or KilnGemm.lookup(client, problem)
    y = kernel(x, weight, bias)                          # D = epilogue(x @ weight.T + bias)

Per shape, once: the cubin's params builder runs (one device round trip), outside any CUDA graph
capture. Per call, on the host only: input checks, pointer patching (memoised per pointer set, so
static buffers cost a dictionary lookup), one cuLaunchKernelEx on torch's current stream, which
is also what makes calls capturable into CUDA graphs.
"""

from __future__ import annotations

from typing import Any

import torch

from worker.kernels.problem import round_up
from worker.runtime.launcher import LoadedKernel, PreparedLaunch
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
        self.epilogue = launch["epilogue"]
        self.alpha = float(spec.get("alpha", 1.0))
        self.beta = float(spec.get("beta", 0.0))
        self._prep = ShapePrep(self.kernel, launch.get("runtime"))
        self.pad = int((launch.get("gemm_padding") or {}).get("pad_k_and_n_to", 0))
        self._padded_key: tuple[int, ...] | None = None
        self._padded_params_cache: tuple[torch.Tensor, torch.Tensor | None] = (torch.empty(0), None)

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
        if self.pad and x.dim() == 2 and weight.dim() == 2:
            k, n = x.shape[1], weight.shape[0]
            kp, np_ = padded_kn(k, n, self.pad)
            if (kp, np_) != (k, n):
                wp, bp = self._padded_params(weight, bias, kp, np_)
                xp, rp = pad_activations(x, residual, kp, np_)
                y = self._run(xp, wp, bp, rp, None)[:, :n]
                return out.copy_(y) if out is not None else y
        return self._run(x, weight, bias, residual, out)

    def _padded_params(self, weight: torch.Tensor, bias: torch.Tensor | None, kp: int,
                       np_: int) -> tuple[torch.Tensor, torch.Tensor | None]:
        key = (weight.data_ptr(), weight._version, bias.data_ptr() if bias is not None else 0,
               bias._version if bias is not None else 0, kp, np_)
        if self._padded_key != key:
            self._padded_key, self._padded_params_cache = key, pad_parameters(weight, bias, kp, np_)
        return self._padded_params_cache

    def _run(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, residual: torch.Tensor | None,
             out: torch.Tensor | None) -> torch.Tensor:
        """Checks every operand (dtype, device, row-major, 16-byte aligned, shapes) with as few torch
        queries as that takes, then launches with args packed once per pointer set."""
        index = x.get_device()
        if index < 0:
            raise KernelInputError("x must be a CUDA tensor")
        xs, ws_ = x.shape, weight.shape
        if len(xs) != 2 or len(ws_) != 2 or xs[1] != ws_[1]:
            raise KernelInputError(f"shapes x{tuple(xs)} and weight{tuple(ws_)} do not make x @ weight.T")
        (m, k), n = xs, ws_[0]
        if k % self.alignment[0] or k % self.alignment[1] or n % self.alignment[2]:
            raise KernelInputError(f"K={k} and N={n} must be multiples of the kernel's alignment {self.alignment}")
        dtype = self.dtype
        a_ptr = checked_address(x, "x", dtype, index)
        b_ptr = checked_address(weight, "weight", dtype, index)
        bias_ptr = c_ptr = 0
        if bias is not None:
            if bias.shape != (n,):
                raise KernelInputError(f"bias must have shape ({n},)")
            bias_ptr = checked_address(bias, "bias", dtype, index)
        elif self.epilogue["bias"]:
            raise KernelInputError(f"this kernel fuses a bias: pass bias of shape ({n},)")
        if residual is not None:
            if residual.shape != (m, n):
                raise KernelInputError(f"residual must have shape ({m}, {n})")
            c_ptr = checked_address(residual, "residual", dtype, index)
        elif self.epilogue["residual"]:
            raise KernelInputError(f"this kernel adds a residual: pass residual of shape ({m}, {n})")
        if out is None:
            out = torch.empty((m, n), dtype=dtype, device=x.device)
        elif out.shape != (m, n):
            raise KernelInputError(f"out must have shape ({m}, {n})")
        d_ptr = checked_address(out, "out", dtype, index)
        p = self._prep.prepared.get((m, n, k, index)) or self.prepare(m, n, k, x.device)
        ws = self._prep.workspace(p)
        args = self._prep.packed(p, {"A": a_ptr, "B": b_ptr, "C": c_ptr, "D": d_ptr, "bias": bias_ptr, "workspace": ws})
        self.kernel.launch_args(p, args, raw_stream(index), ws)
        return out
