"""Conv2d operands, reference and library paths for the measurement process (worker/gpu_bench.py).

Kiln's kernel reads NHWC activations and KRSC filters whose channels may be zero-padded (the
result's launch contract says to what multiple); the library paths get the same tensors unpadded,
as channels_last NCHW views, which is what cuDNN runs fastest. The reference is an fp32
convolution on the device.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import torch
import torch.nn.functional as F

from service.specs.conv2d import Conv2dSpec
from worker.gpu_bench import TORCH_DTYPE, activation
from worker.kernels.conv_problem import ConvProblem
from worker.runtime import conv_transforms as transforms


@dataclass
class ConvOperands:
    x: torch.Tensor  # what the kernel reads: NHWC, folded space-to-depth and/or channel-padded
    w: torch.Tensor  # likewise KRSC
    C: torch.Tensor | None  # residual [N, P, Q, K]
    D: torch.Tensor  # [N, P, Q, K]
    bias: torch.Tensor | None
    x_user: torch.Tensor  # [N, H, W, C] as the user holds it (NHWC, unpadded)
    w_user: torch.Tensor  # [K, R, S, C]
    kernel_problem: ConvProblem  # the convolution the kernel runs on x and w

    def out(self) -> torch.Tensor:
        return self.D

    def pointers(self) -> dict[str, int]:
        return {"A": self.x.data_ptr(), "B": self.w.data_ptr(), "C": self.C.data_ptr() if self.C is not None else 0,
                "D": self.D.data_ptr(), "bias": self.bias.data_ptr() if self.bias is not None else 0}

    def nbytes(self) -> int:
        return sum(t.numel() * t.element_size() for t in (self.x, self.w, self.C, self.D, self.bias) if t is not None)

    def x_nchw(self) -> torch.Tensor:
        """The user's activation as a channels_last NCHW tensor (what a torch user holds)."""
        return self.x_user.permute(0, 3, 1, 2)

    def w_kcrs(self) -> torch.Tensor:
        return self.w_user.permute(0, 3, 1, 2)


class ConvBench:
    """The same interface as gpu_bench.Problem, for a Conv2d spec."""

    def __init__(self, spec: dict[str, Any], epilogue: dict[str, Any], device: str = "cuda") -> None:
        self.device = device  # "cpu" lets tests check operand construction without a GPU
        self.spec = spec
        self.conv = ConvProblem.from_spec(Conv2dSpec.model_validate(spec))
        self.dtype = TORCH_DTYPE[spec["dtype"]]
        self.alpha, self.beta = 1.0, 1.0
        self.epi = epilogue
        self._lib_cache: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}

    @property
    def flops(self) -> int:
        return self.conv.flops

    @property
    def full_shape(self) -> tuple[int, ...]:
        return (self.conv.n, self.conv.h, self.conv.w, 0)

    def verify_shapes(self, m_cut: int, k_cut: int) -> list[tuple[tuple[int, ...], str]]:
        """Full problem with exact small-integer and random inputs; then a single image with one
        row and column fewer (M tails, different P·Q; the GEMM's cuts do not apply)."""
        cp = self.conv
        shapes: list[tuple[tuple[int, ...], str]] = [(self.full_shape, "int"), (self.full_shape, "rand")]
        if cp.h > cp.r and cp.w > cp.s:
            shapes.append(((1, cp.h - 1, cp.w - 1, 0), "rand"))
        return shapes

    def _problem(self, shape: tuple[int, ...]) -> ConvProblem:
        n, h, w, _ = shape
        return replace(self.conv, n=n, h=h, w=w)

    def make(self, shape: tuple[int, ...], kind: str, pad: int = 0, s2d: int = 0) -> ConvOperands:
        """Operands as the user holds them, and as the kernel reads them: folded space-to-depth by
        `s2d` and channels zero-padded to a multiple of `pad` (0: as given), through the same
        transforms the client helper applies for a kernel whose contract asks for them."""
        cp = self._problem(shape)
        kp = cp.rewritten(s2d, pad)
        p, q = cp.output_hw
        dev, dt = self.device, self.dtype

        def gen(*dims: int) -> torch.Tensor:
            if kind == "int":
                return torch.randint(-1, 2, dims, device=dev).to(dt)
            return (torch.randn(*dims, device=dev) * 0.5).to(dt)

        x_user, w_user = gen(cp.n, cp.h, cp.w, cp.c), gen(cp.k, cp.r, cp.s, cp.c)
        x = transforms.kernel_input(x_user, pad_to=kp.pad_c, block=s2d, padding=cp.padding, out_hw=(p, q),
                                    taps=(kp.r, kp.s))
        wt = transforms.kernel_filter(w_user, pad_to=kp.pad_c, block=s2d)
        C = gen(cp.n, p, q, cp.k) if self.epi["residual"] else None
        bias = gen(cp.k) if self.epi["bias"] else None
        D = torch.empty(cp.n, p, q, cp.k, device=dev, dtype=dt)
        return ConvOperands(x, wt, C, D, bias, x_user, w_user, kp)

    def launch_shape(self, o: ConvOperands, config: dict[str, Any] | None = None) -> dict[str, Any]:
        """Builder dims of the convolution the kernel runs (its C: the channels it reads). A GEMM
        kernel serving a pointwise conv gets the GEMM view instead."""
        n, h, w, cpad = o.x.shape
        if config is not None and not config["family"].endswith("_conv_fprop"):
            return {"m": n * h * w, "n": self.conv.k, "k": cpad}
        return {"dims": o.kernel_problem.builder_dims()}

    def reference(self, o: ConvOperands) -> torch.Tensor:
        cp = self.conv
        y = F.conv2d(o.x_nchw().float(), o.w_kcrs().float(), None, cp.stride, cp.padding, cp.dilation)
        if o.bias is not None:
            y = y + o.bias.float().view(1, -1, 1, 1)
        y = y.permute(0, 2, 3, 1)
        if self.epi["residual"] and o.C is not None:
            y = y + o.C.float()
        return activation(self.epi["activation"], y)

    def _lib_inputs(self, o: ConvOperands) -> tuple[torch.Tensor, torch.Tensor]:
        """The user's tensors as channels_last copies, made once per operand set (the library never
        sees Kiln's padding or folding)."""
        key = id(o)
        if key not in self._lib_cache:
            self._lib_cache[key] = (o.x_nchw().contiguous(memory_format=torch.channels_last),
                                    o.w_kcrs().contiguous(memory_format=torch.channels_last))
        return self._lib_cache[key]

    def library(self, o: ConvOperands) -> dict[str, Any]:
        """cuDNN conv + torch elementwise ops (what eager users run), and cuDNN's fused
        conv+bias+ReLU / conv+add+ReLU where torch exposes them. Each returns the output."""
        cp = self.conv
        x, w = self._lib_inputs(o)
        act = self.epi["activation"]
        residual = o.C.permute(0, 3, 1, 2) if o.C is not None else None

        def unfused() -> torch.Tensor:
            y = F.conv2d(x, w, o.bias, cp.stride, cp.padding, cp.dilation)
            if residual is not None:
                y = y + residual
            return activation(act, y)

        paths: dict[str, Any] = {"cudnn+torch": unfused}
        if act == "relu" and residual is None and o.bias is not None:
            paths["cudnn_fused_bias_relu"] = lambda: torch.cudnn_convolution_relu(
                x, w, o.bias, cp.stride, cp.padding, cp.dilation, 1)
        if act == "relu" and residual is not None:
            paths["cudnn_fused_add_relu"] = lambda: torch.cudnn_convolution_add_relu(
                x, w, residual, 1.0, o.bias, cp.stride, cp.padding, cp.dilation, 1)
        return paths

    def reference_paths(self, o: ConvOperands) -> dict[str, Any]:
        """The convolution alone through cuDNN: the issue's 'conv alone' comparison."""
        cp = self.conv
        x, w = self._lib_inputs(o)
        return {"cudnn_conv_only": lambda: F.conv2d(x, w, None, cp.stride, cp.padding, cp.dilation)}
