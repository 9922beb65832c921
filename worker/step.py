"""The contract between the worker loop and whatever tunes a job on the GPU.

The loop owns leases, heartbeats, uploads and retries; a step only turns one job into an
outcome and reports progress. Keeping the two apart is what lets the queue tests run many
real worker processes with a simulated step while the real GPU step is tested on a GPU.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from worker.device import DeviceInfo


class Cancelled(Exception):
    """The job's lease was lost or the job was cancelled: stop working on it."""


class StepFailed(Exception):
    """The step could not produce a result; `retryable` says whether another attempt can help."""

    def __init__(self, message: str, *, retryable: bool) -> None:
        super().__init__(message)
        self.retryable = retryable


@dataclass
class BuiltKernel:
    cubin: bytes
    meta: dict[str, Any]  # KernelIn fields except sha256


@dataclass
class StepOutcome:
    kernels: list[BuiltKernel] = field(default_factory=list)
    winner_index: int | None = None
    config: dict[str, Any] | None = None
    launch: dict[str, Any] | None = None
    kernel_time_us: float | None = None
    kernel_spread_us: float | None = None
    tflops: float | None = None
    baseline_library: str | None = None
    baseline_time_us: float | None = None
    candidates: list[dict[str, Any]] = field(default_factory=list)
    # every library path timed in the same run (median µs), e.g. cuBLAS+torch ops and cuBLASLt's
    # fused epilogue, or cuDNN conv alone / + ops / fused; benchmarks report them all
    library_times_us: dict[str, float] = field(default_factory=dict)
    # where the tuning time went (select, compile, measure; inside measure the GPU process's own
    # phases): warm tuning is held to 10 s, and this says which part to cut
    phase_seconds: dict[str, float] = field(default_factory=dict)
    compiled_fresh: int = 0  # cubins this run compiled (the rest came from the compile cache)


# progress(phase=..., generated=..., compiled=..., verified=..., timed=...); raises Cancelled
Progress = Callable[..., None]


class TuningStep(Protocol):
    def device(self) -> DeviceInfo: ...

    def run(self, job: dict[str, Any], progress: Progress) -> StepOutcome: ...
