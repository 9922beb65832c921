"""Request and response bodies of the HTTP API (apart from the problem specs themselves)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from service.specs import Problem, Target
from service.specs.target import ARCHES, arches_for_capability

Sha256 = str
_SHA = r"^[0-9a-f]{64}$"
# Past this a page offset is a typo, and SQLite's 64-bit OFFSET would overflow on it (a 500).
MAX_OFFSET = 1_000_000_000


def _assume_utc(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


# The database keeps naive UTC (SQLite has no zones); the API says so, so that a client reads an
# RFC 3339 instant ("...Z") rather than guessing, as a browser's Date() would, that it is local time.
UtcDateTime = Annotated[datetime, AfterValidator(_assume_utc)]


def naive_utc(value: datetime | None) -> datetime | None:
    """A client's instant as the database compares it: converted to UTC first when it has a zone."""
    if value is None or value.tzinfo is None:
        return value
    return value.astimezone(UTC).replace(tzinfo=None)


def _holds_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(k) or _holds_nul(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_holds_nul(v) for v in value)
    return False


class Strict(BaseModel):
    """A request body: unknown fields, NaN/inf and NUL characters refused with a 422 that names the
    field, rather than stored (PostgreSQL's text refuses NUL; JSON cannot carry NaN back out)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    @field_validator("*", mode="after")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        if _holds_nul(value):
            raise ValueError("NUL characters are not allowed")
        return value


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
    created_at: UtcDateTime


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
    created_at: UtcDateTime
    started_at: UtcDateTime | None
    finished_at: UtcDateTime | None
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

    @field_validator("compute_capability")
    @classmethod
    def _kiln_targets_it(cls, value: tuple[int, int]) -> tuple[int, int]:
        """A GPU no Kiln arch can load would register and then idle forever, never leasing: say so at
        registration, where the worker stops with the reason."""
        if not arches_for_capability(*value):
            raise ValueError(f"no Kiln target loads on compute capability {value[0]}.{value[1]} "
                             f"(targets: {', '.join(ARCHES)})")
        return value


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
    registered_at: UtcDateTime
    last_heartbeat_at: UtcDateTime
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
