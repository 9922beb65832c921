"""A test double for a CUDA tensor, for the runtime's operand checks on a machine without a GPU.

`KilnGemm`'s per-call checks read only a handful of tensor attributes (device index, shape, dtype,
address, contiguity); this double answers them from plain fields, so the checks' logic (which
operand is named, which mistakes are caught before a launch) runs in CI. The launch itself is
exercised on the H200 by tests/gpu/test_torch_runtime.py.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class DeviceTensorDouble:
    shape: torch.Size
    dtype: torch.dtype = torch.float16
    device_index: int = 0
    address: int = 0x7F0000000000
    contiguous: bool = True

    @classmethod
    def of(cls, *shape: int, **kw: object) -> DeviceTensorDouble:
        return cls(torch.Size(shape), **kw)  # type: ignore[arg-type]

    @property
    def device(self) -> torch.device:
        return torch.device("cuda", self.device_index) if self.device_index >= 0 else torch.device("cpu")

    def get_device(self) -> int:
        return self.device_index

    def data_ptr(self) -> int:
        return self.address

    def is_contiguous(self) -> bool:
        return self.contiguous

    def dim(self) -> int:
        return len(self.shape)
