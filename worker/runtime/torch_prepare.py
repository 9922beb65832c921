"""Params per shape for one loaded kernel on PyTorch's device and stream, shared by KilnGemm and
KilnConv2d: the builder runs once per shape (one device round trip, never during CUDA graph
capture), into a scratch buffer; the workspace grows to the largest shape's need; launch arguments
are packed (pointers patched, TMA descriptors encoded) once per shape and pointer set."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from worker.runtime.launcher import LoadedKernel, PackedArgs, PreparedLaunch


def _raw_stream_portable(device_index: int) -> int:
    return int(torch.cuda.current_stream(device_index).cuda_stream)


# The current torch stream's handle, from torch's own C accessor (what Inductor's generated code
# calls): `torch.cuda.current_stream(d).cuda_stream` builds a Stream object per call (~1-2 µs).
# Bound directly, not wrapped: a Python frame more is ~0.1-0.3 µs on the per-call path.
raw_stream: Callable[[int], int] = getattr(torch._C, "_cuda_getCurrentRawStream", _raw_stream_portable)


# The operands a Kiln kernel's Params hold pointers to, in the order callers pass their addresses.
OPERANDS = ("A", "B", "C", "D", "bias", "workspace")


class Workspaces:
    """The workspaces of one kernel's shapes. Kernels the launcher clears before each launch share
    one buffer that only grows; outgrown ones stay allocated, because bound launchers
    (KilnGemm.bind), memoised arguments and captured CUDA graphs still hold their addresses, and a
    freed one would be written into after the allocator handed it to someone else. A self-clearing
    kernel (stream-K, the contract's workspace_self_clearing) skips that memset, so each of its
    shapes gets a buffer of its own, zeroed once: another shape's partial tiles may lie where this
    one's barriers are. Keyed by the PreparedLaunch, which its owner keeps alive."""

    def __init__(self) -> None:
        self.shared: torch.Tensor | None = None
        self.outgrown: list[torch.Tensor] = []
        self.own: dict[int, torch.Tensor] = {}

    def allocate(self, p: PreparedLaunch, device: torch.device | str) -> None:
        """Once per prepared shape, before its first launch."""
        if not p.workspace_alloc:
            return
        if p.self_clearing:
            self.own[id(p)] = torch.zeros(p.workspace_alloc, dtype=torch.uint8, device=device)
        elif self.shared is None or self.shared.numel() < p.workspace_alloc:
            if self.shared is not None:
                self.outgrown.append(self.shared)
            self.shared = torch.zeros(p.workspace_alloc, dtype=torch.uint8, device=device)

    def of(self, p: PreparedLaunch) -> torch.Tensor | None:
        if not p.workspace_alloc:
            return None
        return self.own[id(p)] if p.self_clearing else self.shared

    def address(self, p: PreparedLaunch) -> int:
        workspace = self.of(p)
        return workspace.data_ptr() if workspace is not None else 0


class ShapePrep:
    def __init__(self, kernel: LoadedKernel, runtime: dict[str, Any] | None) -> None:
        self.kernel = kernel
        self.runtime = runtime
        self.prepared: dict[tuple[Any, ...], PreparedLaunch] = {}
        self._scratch: torch.Tensor | None = None
        self.workspaces = Workspaces()
        self._packed: dict[tuple[Any, ...], PackedArgs] = {}

    def get(self, key: tuple[Any, ...], shape: dict[str, Any], device: torch.device, *, alpha: float, beta: float,
            label: str) -> PreparedLaunch:
        """`shape`: m/n/k for GEMMs, dims=… for convs. `label` names the shape in errors."""
        key = (*key, device.index or 0)
        hit = self.prepared.get(key)
        if hit is not None:
            return hit
        if torch.cuda.is_current_stream_capturing():
            raise RuntimeError(f"{label} was not prepared before CUDA graph capture: run or prepare it first")
        if self._scratch is None:
            self._scratch = torch.zeros(65536, dtype=torch.uint8, device=device)
        p = self.kernel.prepare(**shape, alpha=alpha, beta=beta,
                                sm_count=torch.cuda.get_device_properties(device).multi_processor_count,
                                stream=torch.cuda.current_stream(device).cuda_stream,
                                scratch=self._scratch.data_ptr(), runtime=self.runtime)
        self.workspaces.allocate(p, device)
        self.prepared[key] = p
        return p

    def workspace(self, p: PreparedLaunch) -> int:
        return self.workspaces.address(p)

    def packed(self, p: PreparedLaunch, pointers: tuple[int, ...], names: tuple[str, ...] = OPERANDS) -> PackedArgs:
        """The launch arguments for one pointer set (`pointers[i]` is operand `names[i]`'s address).
        Static buffers (weights, preallocated outputs, graph-captured activations) cost a
        dictionary hit per call: a plain dict keyed by the addresses, without per-call dict
        building or LRU bookkeeping, which cost ~1.1 µs a call more. The 256 most recently packed
        sets are kept."""
        key = (id(p), pointers)
        args = self._packed.get(key)
        if args is None:
            args = self._packed[key] = PackedArgs.of(p.pack(dict(zip(names, pointers, strict=True))), p)
            if len(self._packed) > 256:
                del self._packed[next(iter(self._packed))]
        return args
