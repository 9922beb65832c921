"""Request and response bodies of the HTTP API (apart from the problem specs themselves)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from service.specs import Problem, Target

Sha256 = str
_SHA = r"^[0-9a-f]{64}$"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ---- clients -------------------------------------------------------------------------------

class Baseline(BaseModel):
    library: str | None
    time_us: float | None


class MeasuredOn(BaseModel):
    gpu: str
    driver: str
    cuda: str


class KernelRef(BaseModel):
    sha256: str
    url: str
    meta_url: str


class ResultOut(BaseModel):
    spec_key: str
    op: str
    spec: dict[str, Any]
    target: dict[str, Any]
    kernel: KernelRef | None
    config: dict[str, Any] | None
    launch: dict[str, Any] | None
    kernel_time_us: float | None
    kernel_spread_us: float | None
    tflops: float | None
    baseline: Baseline
    speedup: float | None
    recommendation: Literal["kiln", "library"] | str
    measured_on: MeasuredOn
    tuning_seconds: float | None
    candidates_total: int
    job_id: str | None
    created_at: datetime


class Progress(BaseModel):
    generated: int = 0
    compiled: int = 0
    verified: int = 0
    timed: int = 0
    phase: str | None = None


class JobOut(BaseModel):
    id: str
    spec_key: str
    op: str
    spec: dict[str, Any]
    target: dict[str, Any]
    state: str
    priority: int
    attempts: int
    max_attempts: int
    progress: Progress
    error: str | None
    worker_id: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    result: ResultOut | None = None


class TuneItem(BaseModel):
    index: int
    spec_key: str
    status: Literal["cached", "queued", "running"]
    job_id: str | None = None
    joined_existing: bool = False
    result: ResultOut | None = None


class TuneResponse(BaseModel):
    items: list[TuneItem]


class LookupRequest(Strict):
    problem: Problem
    target: Target | None = None
    arch_fallback: bool = Field(
        default=False,
        description="With a target GPU: when this GPU model has no result, accept one tuned for the arch "
                    "on any GPU (answered with header X-Kiln-Fallback: arch)")


class NotTuned(BaseModel):
    detail: str
    spec_key: str
    tuning: bool
    job_id: str | None = None


class Page(BaseModel):
    total: int
    offset: int
    limit: int
    items: list[ResultOut]


# ---- workers -------------------------------------------------------------------------------

class ToolchainIn(Strict):
    generator: str = Field(max_length=32)
    cutlass: str = Field(max_length=32)
    nvrtc: str = Field(max_length=32)


class WorkerRegistration(Strict):
    name: str = Field(min_length=1, max_length=128)
    hostname: str = Field(min_length=1, max_length=128)
    gpu_name: str = Field(min_length=1, max_length=64)
    gpu_index: int = Field(default=0, ge=0, le=255)
    compute_capability: tuple[int, int]
    sm_count: int = Field(ge=1, le=4096)
    driver: str = Field(max_length=32)
    cuda_version: str = Field(max_length=32)
    toolchain: ToolchainIn


class WorkerOut(BaseModel):
    id: str
    name: str
    hostname: str
    gpu_name: str
    gpu_index: int
    arches: list[str]
    sm_count: int
    driver: str
    cuda_version: str
    toolchain: str
    registered_at: datetime
    last_heartbeat_at: datetime
    online: bool
    current_job_id: str | None
    jobs_succeeded: int
    jobs_failed: int


class LeaseOut(BaseModel):
    job: JobOut
    lease_token: str
    lease_seconds: float


class LeaseRef(Strict):
    job_id: str = Field(max_length=32)
    lease_token: str = Field(max_length=64)


class HeartbeatIn(Strict):
    leases: list[LeaseRef] = Field(default_factory=list, max_length=64)


class HeartbeatOut(BaseModel):
    alive: dict[str, bool]


class ProgressIn(Strict):
    lease_token: str = Field(max_length=64)
    generated: int = Field(default=0, ge=0)
    compiled: int = Field(default=0, ge=0)
    verified: int = Field(default=0, ge=0)
    timed: int = Field(default=0, ge=0)
    phase: str | None = Field(default=None, max_length=32, pattern=r"^[a-z_]+$")


class FailIn(Strict):
    lease_token: str = Field(max_length=64)
    error: str = Field(max_length=200_000)
    retryable: bool = True


class KernelIn(Strict):
    sha256: str = Field(pattern=_SHA)
    name: str = Field(max_length=160)
    family: str = Field(max_length=32)
    arch: str = Field(max_length=16)
    config: dict[str, Any]
    source_sha256: str = Field(pattern=_SHA)
    compile_seconds: float | None = None
    compile_log: str | None = Field(default=None, max_length=200_000)
    launch: dict[str, Any]


class CandidateIn(Strict):
    name: str = Field(max_length=160)
    config: dict[str, Any]
    status: Literal["timed", "compile_failed", "verify_failed", "launch_failed", "skipped"]
    reason: str | None = Field(default=None, max_length=20_000)
    kernel_sha256: str | None = Field(default=None, pattern=_SHA)
    compile_seconds: float | None = None
    time_us: float | None = None
    spread_us: float | None = None
    tflops: float | None = None


class ResultIn(Strict):
    lease_token: str = Field(max_length=64)
    kernels: list[KernelIn] = Field(default_factory=list, max_length=512)
    winner_sha256: str | None = Field(default=None, pattern=_SHA)
    config: dict[str, Any] | None = None
    launch: dict[str, Any] | None = None
    kernel_time_us: float | None = Field(default=None, gt=0)
    kernel_spread_us: float | None = Field(default=None, ge=0)
    tflops: float | None = None
    baseline_library: str | None = Field(default=None, max_length=64)
    baseline_time_us: float | None = Field(default=None, gt=0)
    tuning_seconds: float | None = Field(default=None, ge=0)
    candidates: list[CandidateIn] = Field(default_factory=list, max_length=4096)
    measured: MeasuredOn
