"""PyTorch integration: a `kiln::linear` custom op and a drop-in `KilnLinear` module.

Each call looks its GEMM up in Kiln (the client's on-disk cache first, then the service) and runs
the tuned kernel when there is one and it beat the library; otherwise it falls back to
`F.linear` + the epilogue in torch, and (optionally) submits the untuned spec for background
tuning so later runs pick the kernel up. Decisions are memoised per shape, so the lookup cost is
paid once per shape and process.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import torch
import torch.nn.functional as F

from service.client import KilnClient
from service.client.common import local_key
from service.specs.conv2d import output_hw
from worker.runtime.torch_conv import KilnConv2d
from worker.runtime.torch_gemm import KilnGemm

DTYPES = {torch.float16: "f16", torch.bfloat16: "bf16"}
ACTIVATIONS = {
    "none": lambda y: y, "bias": lambda y: y, "relu": torch.relu, "bias_relu": torch.relu,
    "gelu": lambda y: F.gelu(y, approximate="tanh"), "bias_gelu": lambda y: F.gelu(y, approximate="tanh"),
    "silu": F.silu, "bias_silu": F.silu, "hardswish": F.hardswish, "bias_hardswish": F.hardswish,
    "sigmoid": torch.sigmoid, "bias_sigmoid": torch.sigmoid,
}


def reference_linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, epilogue: str) -> torch.Tensor:
    if epilogue not in ACTIVATIONS:
        raise ValueError(f"kiln::linear supports {sorted(ACTIVATIONS)}, not {epilogue!r}")
    return ACTIVATIONS[epilogue](F.linear(x, weight, bias))


Kernel = KilnGemm | KilnConv2d


class KernelRegistry:
    """Which shapes have a Kiln kernel in this process (memoised; re-asked after `retry_after` s)."""

    def __init__(self, client: KilnClient | None, target: dict[str, Any] | None = None, *,
                 submit_untuned: bool = True, retry_after: float = 300.0) -> None:
        self.client = client
        self.target = target
        self.submit_untuned = submit_untuned
        self.retry_after = retry_after
        self._kernels: dict[str, Kernel | None] = {}
        self._asked: dict[str, float] = {}
        self._decided: dict[tuple[Any, ...], tuple[Kernel | None, float]] = {}
        self._lock = threading.Lock()
        self.submitted: list[dict[str, Any]] = []

    def gemm(self, m: int, n: int, k: int, dtype: torch.dtype, epilogue: str) -> KilnGemm | None:
        """Per call on the forward path: one dictionary lookup once the shape has been decided
        (the spec key is a pydantic validation plus a sha256: ~100 µs, paid once per shape)."""
        def problem() -> dict[str, Any]:
            return {"op": "gemm", "m": m, "n": n, "k": k, "dtype": DTYPES[dtype], "epilogue": epilogue}

        return self._cached(("gemm", m, n, k, dtype, epilogue), dtype, problem, KilnGemm)  # type: ignore[return-value]

    def conv2d(self, x_shape: tuple[int, ...], w_shape: tuple[int, ...], stride: tuple[int, int],
               padding: tuple[int, int], dilation: tuple[int, int], dtype: torch.dtype,
               epilogue: str) -> KilnConv2d | None:
        """The same for a Conv2d: x is NCHW (N, C, H, W), the weight (K, C, R, S)."""
        def problem() -> dict[str, Any]:
            n, c, h, w = x_shape
            k, _, r, s = w_shape
            return {"op": "conv2d", "n": n, "h": h, "w": w, "c": c, "k": k, "r": r, "s": s, "stride": list(stride),
                    "padding": list(padding), "dilation": list(dilation), "dtype": DTYPES[dtype], "epilogue": epilogue}

        key = ("conv2d", x_shape, w_shape, stride, padding, dilation, dtype, epilogue)
        return self._cached(key, dtype, problem, KilnConv2d)  # type: ignore[return-value]

    def _cached(self, shape: tuple[Any, ...], dtype: torch.dtype, problem: Any, kind: Any) -> Kernel | None:
        hit = self._decided.get(shape)
        if hit is not None and (hit[0] is not None or time.monotonic() - hit[1] < self.retry_after):
            return hit[0]
        kernel = self._decide(problem(), kind) if self.client is not None and dtype in DTYPES else None
        self._decided[shape] = (kernel, time.monotonic())
        return kernel

    def _decide(self, problem: dict[str, Any], kind: Any) -> Kernel | None:
        key = local_key(problem, self.target, self.client.default_arch)  # type: ignore[union-attr]
        with self._lock:
            if key in self._kernels and (self._kernels[key] is not None
                                         or time.monotonic() - self._asked[key] < self.retry_after):
                return self._kernels[key]
            self._asked[key] = time.monotonic()
            self._kernels[key] = kernel = self._resolve(problem, kind)
            return kernel

    def _resolve(self, problem: dict[str, Any], kind: Any) -> Kernel | None:
        try:
            result = self.client.lookup(problem, self.target)  # type: ignore[union-attr]
        except Exception:  # the service being down must never break a model's forward pass
            return None
        if result is None:
            if self.submit_untuned:
                try:
                    self.client.tune([problem], self.target)  # type: ignore[union-attr]
                    self.submitted.append(problem)
                except Exception:
                    pass
            return None
        if result.get("recommendation") != "kiln" or not result.get("kernel"):
            return None  # measured: the library is faster for this spec
        sha = result["kernel"]["sha256"]
        try:
            return kind.from_result(self.client.fetch(sha), result, self.client.meta(sha))  # type: ignore[union-attr]
        except Exception:
            return None


_REGISTRY: KernelRegistry | None = None


def set_registry(registry: KernelRegistry | None) -> None:
    global _REGISTRY
    _REGISTRY = registry


def linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, epilogue: str) -> torch.Tensor:
    """epilogue(x @ weight.T + bias) with a Kiln kernel when one is tuned for this shape. Eager
    callers (KilnLinear outside torch.compile) call this directly: the custom op's Python dispatch
    costs more host time per call than the kernel launch itself."""
    if _REGISTRY is not None and x.dim() == 2 and x.is_cuda:
        kernel = _REGISTRY.gemm(x.shape[0], weight.shape[0], x.shape[1], x.dtype, epilogue)
        if kernel is not None:
            try:
                return kernel(x.contiguous(), weight, bias)
            except ValueError:
                pass  # inputs this kernel cannot take (alignment, dtype, strides): the library path below
    return reference_linear(x, weight, bias, epilogue)


kiln_linear = torch.library.custom_op("kiln::linear", linear, mutates_args=())


@kiln_linear.register_fake
def _(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, epilogue: str) -> torch.Tensor:
    return x.new_empty((x.shape[0], weight.shape[0]))


def fusable(activation: str) -> str:
    if activation not in ("none", "relu", "gelu", "silu", "hardswish", "sigmoid"):
        raise ValueError(f"activation {activation!r} has no fused epilogue")
    return activation


class FusedEpilogue:
    """The epilogue a layer's bias and activation fuse into (what its Kiln spec asks for)."""

    activation: str
    bias: Any

    @property
    def epilogue(self) -> str:
        if self.bias is None:
            return self.activation
        return "bias" if self.activation == "none" else f"bias_{self.activation}"


class KilnLinear(FusedEpilogue, torch.nn.Linear):
    """nn.Linear (plus a fused activation) whose matmul runs Kiln's tuned kernel where there is one."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, *, activation: str = "none",
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_features, out_features, bias=bias, device=device, dtype=dtype)
        self.activation = fusable(activation)

    @classmethod
    def from_linear(cls, linear: torch.nn.Linear, activation: str = "none") -> KilnLinear:
        new = cls(linear.in_features, linear.out_features, linear.bias is not None, activation=activation,
                  device=linear.weight.device, dtype=linear.weight.dtype)
        new.load_state_dict(linear.state_dict())
        return new

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        flat = x.reshape(-1, x.shape[-1])
        op = torch.ops.kiln.linear if torch.compiler.is_compiling() else linear
        y = op(flat, self.weight, self.bias, self.epilogue)
        return y.reshape(*x.shape[:-1], self.out_features)


def reference_conv2d(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, stride: list[int],
                     padding: list[int], dilation: list[int], epilogue: str) -> torch.Tensor:
    if epilogue not in ACTIVATIONS:
        raise ValueError(f"kiln::conv2d supports {sorted(ACTIVATIONS)}, not {epilogue!r}")
    return ACTIVATIONS[epilogue](F.conv2d(x, weight, bias, stride, padding, dilation))


def conv2d(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, stride: list[int],
           padding: list[int], dilation: list[int], epilogue: str) -> torch.Tensor:
    """epilogue(conv2d(x, weight) + bias) with a Kiln kernel when one is tuned for this shape; the
    result is channels_last (NHWC in memory), as cuDNN returns for channels_last inputs. Eager
    callers call this directly, as for `linear`."""
    if x.is_cuda and _REGISTRY is not None and x.dim() == 4:
        kernel = _REGISTRY.conv2d(tuple(x.shape), tuple(weight.shape), (stride[0], stride[1]), (padding[0], padding[1]),
                                  (dilation[0], dilation[1]), x.dtype, epilogue)
        if kernel is not None:
            try:
                return kernel(x, weight, bias)  # a channels_last view of the kernel's NHWC output
            except ValueError:
                pass  # inputs this kernel cannot take: the library path below
    return reference_conv2d(x, weight, bias, stride, padding, dilation, epilogue)


kiln_conv2d = torch.library.custom_op("kiln::conv2d", conv2d, mutates_args=())


@kiln_conv2d.register_fake
def _(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, stride: list[int], padding: list[int],
      dilation: list[int], epilogue: str) -> torch.Tensor:
    n, _, h, w = x.shape
    k, _, r, s = weight.shape
    p, q = output_hw(h, w, r, s, stride, padding, dilation)
    return x.new_empty((n, k, p, q)).contiguous(memory_format=torch.channels_last)


class KilnConv2dModule(FusedEpilogue, torch.nn.Conv2d):
    """nn.Conv2d (dense, zeros padding) plus a fused activation, running Kiln's tuned kernel where
    there is one that beat cuDNN. Keep activations channels_last: that is NHWC, Kiln's layout."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, bias: bool = True, *, activation: str = "none", device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups=1, bias=bias,
                         device=device, dtype=dtype)
        self.activation = fusable(activation)
        if isinstance(self.padding, str):
            raise ValueError("string padding ('same'/'valid') is not supported: pass the numbers")

    @classmethod
    def from_conv(cls, conv: torch.nn.Conv2d, activation: str = "none") -> KilnConv2dModule:
        if conv.groups != 1 or conv.padding_mode != "zeros":
            raise ValueError("only dense convs with zero padding have Kiln kernels")
        new = cls(conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride, conv.padding, conv.dilation,
                  conv.bias is not None, activation=activation, device=conv.weight.device, dtype=conv.weight.dtype)
        new.load_state_dict(conv.state_dict())
        return new

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        op = torch.ops.kiln.conv2d if torch.compiler.is_compiling() else conv2d
        padding: list[int] = list(self.padding)  # type: ignore[arg-type]  # strings are refused in __init__
        return op(x, self.weight, self.bias, list(self.stride), padding, list(self.dilation), self.epilogue)
