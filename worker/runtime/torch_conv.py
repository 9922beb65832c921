"""Launch Kiln Conv2d kernels on PyTorch tensors, as easily as calling F.conv2d.

    conv = KilnConv2d.from_result(cubin, result, meta)
    y = conv(x, weight, bias)          # x: NCHW (channels_last is free), weight: [K, C, R, S]

The kernel computes on NHWC activations and KRSC filters whose channels are zero-padded to what
its launch contract says (`launch["conv"]["pad_channels_to"]`), and for a folded stem conv
first folded space-to-depth (`launch["conv"]["space_to_depth"]`). This helper does both at the
boundary: a channels_last NCHW tensor *is* NHWC in memory, so only padding or folding (stem
convs with C=3) costs a copy; filters are converted once per weight version and cached. The
output comes back as a channels_last NCHW view of the NHWC result, so chains of convs never
transform in between.
"""

from __future__ import annotations

from typing import Any

import torch

from service.specs.epilogues import Epilogue
from service.specs.gemm import DType
from worker.kernels.conv_problem import ConvProblem
from worker.runtime import conv_transforms as transforms
from worker.runtime.launcher import LoadedKernel, PreparedLaunch
from worker.runtime.torch_gemm import TORCH_DTYPE, KernelInputError, check_tensors
from worker.runtime.torch_prepare import ShapePrep, raw_stream


class KilnConv2d:
    def __init__(self, cubin: bytes, launch: dict[str, Any], spec: dict[str, Any]) -> None:
        if spec.get("op") != "conv2d":
            raise ValueError("KilnConv2d runs Conv2d kernels")
        self.spec = spec
        self.launch = launch
        self.kernel = LoadedKernel(cubin, launch)
        self.dtype = TORCH_DTYPE[spec.get("dtype", "f16")]
        self.epilogue = launch["epilogue"]
        self.pad_to = int(launch.get("conv", {}).get("pad_channels_to", 1))
        self.block = int(launch.get("conv", {}).get("space_to_depth", 1))
        self.as_gemm = bool(launch.get("conv", {}).get("as_gemm"))  # a GEMM kernel serving a 1x1 conv
        self.stride = _pair(spec.get("stride", 1))
        self.padding = _pair(spec.get("padding", 0))
        self.dilation = _pair(spec.get("dilation", 1))
        self._prep = ShapePrep(self.kernel, launch.get("runtime"))
        self._filters: dict[tuple[int, int], torch.Tensor] = {}

    @classmethod
    def from_result(cls, cubin: bytes, result: dict[str, Any], meta: dict[str, Any]) -> KilnConv2d:
        launch = {**meta["launch"], **(result.get("launch") or {})}
        return cls(cubin, launch, result["spec"])

    def kernel_problem(self, x: torch.Tensor, weight: torch.Tensor) -> ConvProblem:
        """The convolution the kernel runs on these tensors (folded, padded) as its contract says."""
        n, c, h, w = x.shape
        k, _, r, s = weight.shape
        user = ConvProblem(n, h, w, c, k, r, s, self.stride, self.padding, self.dilation,
                           DType(self.spec.get("dtype", "f16")), Epilogue.none)
        return user.rewritten(self.block, self.pad_to)  # the contract's 1 means none, as 0 does here

    def to_kernel_input(self, x: torch.Tensor, kp: ConvProblem) -> torch.Tensor:
        """The activation as the kernel reads it. A channels_last tensor that needs neither padding
        nor folding is passed as is; otherwise the cubin's own transform kernel (sm90 convs) or
        torch (2.x convs: channel padding only) builds it."""
        nhwc = x.permute(0, 2, 3, 1)
        if (self.block > 1 or kp.pad_c) and self.kernel.fold_entry is not None:
            src = nhwc.contiguous()
            y = torch.empty((kp.n, kp.h, kp.w, kp.kernel_c), dtype=x.dtype, device=x.device)
            n, c, h, w = x.shape
            pad = self.padding if self.block > 1 else (0, 0)
            self.kernel.launch_fold({"x": src.data_ptr(), "y": y.data_ptr(), "n": n, "h": h, "w": w, "c": c,
                                     "ho": kp.h, "wo": kp.w, "cp": kp.kernel_c, "b": self.block,
                                     "pad_h": pad[0], "pad_w": pad[1]}, y.numel(), raw_stream(x.device.index or 0))
            return y
        return transforms.kernel_input(nhwc, pad_to=self.pad_to, block=self.block, padding=self.padding,
                                       out_hw=kp.output_hw, taps=(kp.r, kp.s))

    def filters(self, weight: torch.Tensor) -> torch.Tensor:
        """KCRS → KRSC, folded and padded; cached per weight tensor version (weights rarely change)."""
        key = (weight.data_ptr(), weight._version)
        if key not in self._filters:
            self._filters.clear()
            self._filters[key] = transforms.kernel_filter(weight.permute(0, 2, 3, 1), pad_to=self.pad_to,
                                                          block=self.block)
        return self._filters[key]

    def _check(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None,
               residual: torch.Tensor | None) -> None:
        # layouts are converted here (NCHW → NHWC, padding), so only device and dtype are the caller's
        check_tensors({"x": x, "weight": weight, "bias": bias, "residual": residual}, self.dtype, row_major=False)
        if x.dim() != 4 or weight.dim() != 4 or x.shape[1] != weight.shape[1]:
            raise KernelInputError(f"x{tuple(x.shape)} (NCHW) and weight{tuple(weight.shape)} (KCRS) do not match")
        want = {"c": self.spec["c"], "k": self.spec["k"], "r": self.spec["r"], "s": self.spec["s"]}
        got = {"c": x.shape[1], "k": weight.shape[0], "r": weight.shape[2], "s": weight.shape[3]}
        if got != want:
            raise KernelInputError(f"the kernel was tuned for {want}, got {got}")
        k = weight.shape[0]
        if self.epilogue["bias"] and (bias is None or bias.shape != (k,)):
            raise KernelInputError(f"this kernel fuses a bias: pass bias of shape ({k},)")
        if self.epilogue["residual"] and residual is None:
            raise KernelInputError("this kernel adds a residual: pass residual (N, K, P, Q)")

    def prepare(self, dims: dict[str, int], device: torch.device) -> PreparedLaunch:
        """Build params for a shape (one device round trip). Run each shape once before graph capture."""
        shape: dict[str, Any] = (
            {"m": dims["n"] * dims["h"] * dims["w"], "n": dims["k"], "k": dims["c"]} if self.as_gemm else {"dims": dims})
        return self._prep.get(tuple(dims.values()), shape, device, alpha=1.0, beta=1.0, label="this conv shape")

    def __call__(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None,
                 residual: torch.Tensor | None = None) -> torch.Tensor:
        """y = epilogue(conv2d(x, weight) + bias [+ residual]), returned as channels_last NCHW."""
        self._check(x, weight, bias, residual)
        kp = self.kernel_problem(x, weight)
        dims = kp.builder_dims()
        xs, ws = self.to_kernel_input(x, kp), self.filters(weight)
        out = torch.empty((dims["n"], dims["p"], dims["q"], dims["k"]), dtype=self.dtype, device=x.device)
        res = residual.permute(0, 2, 3, 1).contiguous() if residual is not None else None
        if res is not None and res.shape != out.shape:
            raise KernelInputError(f"residual must be (N, K, P, Q) = {(dims['n'], dims['k'], dims['p'], dims['q'])}")
        p = self.prepare(dims, x.device)
        ws_ptr = self._prep.workspace(p)
        args = self._prep.packed(p, (xs.data_ptr(), ws.data_ptr(), res.data_ptr() if res is not None else 0,
                                     out.data_ptr(), bias.data_ptr() if bias is not None else 0, ws_ptr))
        self.kernel.launch_args(p, args, raw_stream(x.device.index or 0), ws_ptr)
        return out.permute(0, 3, 1, 2)


def _pair(v: Any) -> tuple[int, int]:
    return (int(v), int(v)) if isinstance(v, int) else (int(v[0]), int(v[1]))
