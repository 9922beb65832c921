"""SQLAlchemy table models: jobs, workers, kernels (+ their cubin blobs), tuning results, candidates, tokens.

Times are naive UTC written by the API server only (workers never send clocks), so lease
expiry compares times from one clock even with workers on many hosts.
"""

from __future__ import annotations

import enum
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Enum,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


class JobState(enum.StrEnum):
    queued = "queued"
    running = "running"
    succeeded = "succeeded"
    failed = "failed"
    cancelled = "cancelled"


ACTIVE_STATES = (JobState.queued, JobState.running)
_ACTIVE_SQL = "state IN ('queued', 'running')"


class Job(Base):
    __tablename__ = "jobs"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    spec_key: Mapped[str] = mapped_column(String(64), index=True)
    op: Mapped[str] = mapped_column(String(16))
    spec: Mapped[dict[str, Any]] = mapped_column(JSON)
    arch: Mapped[str] = mapped_column(String(16))
    gpu: Mapped[str | None] = mapped_column(String(64))
    toolchain: Mapped[str] = mapped_column(String(128))
    state: Mapped[JobState] = mapped_column(Enum(JobState, native_enum=False, length=16), default=JobState.queued)
    priority: Mapped[int] = mapped_column(Integer, default=0)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    max_attempts: Mapped[int] = mapped_column(Integer, default=3)
    run_after: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    lease_token: Mapped[str | None] = mapped_column(String(64))
    lease_expires_at: Mapped[datetime | None] = mapped_column(DateTime)
    worker_id: Mapped[str | None] = mapped_column(String(32), ForeignKey("workers.id"))
    generated: Mapped[int] = mapped_column(Integer, default=0)
    compiled: Mapped[int] = mapped_column(Integer, default=0)
    verified: Mapped[int] = mapped_column(Integer, default=0)
    timed: Mapped[int] = mapped_column(Integer, default=0)
    phase: Mapped[str | None] = mapped_column(String(32))
    error: Mapped[str | None] = mapped_column(Text)
    result_id: Mapped[int | None] = mapped_column(ForeignKey("tuning_results.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime)

    __table_args__ = (
        # At most one live job per spec: concurrent identical submissions join it (insert races
        # lose on this index and re-read the winner instead of queueing twice).
        Index(
            "uq_jobs_active_spec",
            "spec_key",
            unique=True,
            sqlite_where=text(_ACTIVE_SQL),
            postgresql_where=text(_ACTIVE_SQL),
        ),
        Index("ix_jobs_claim", "state", "arch", "priority", "created_at"),
    )


class Worker(Base):
    __tablename__ = "workers"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(128))
    hostname: Mapped[str] = mapped_column(String(128))
    gpu_name: Mapped[str] = mapped_column(String(64))
    gpu_index: Mapped[int] = mapped_column(Integer, default=0)
    arches: Mapped[list[Any]] = mapped_column(JSON)
    sm_count: Mapped[int] = mapped_column(Integer)
    driver: Mapped[str] = mapped_column(String(32))
    cuda_version: Mapped[str] = mapped_column(String(32))
    toolchain: Mapped[str] = mapped_column(String(128))
    registered_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    last_heartbeat_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    current_job_id: Mapped[str | None] = mapped_column(String(32))
    jobs_succeeded: Mapped[int] = mapped_column(Integer, default=0)
    jobs_failed: Mapped[int] = mapped_column(Integer, default=0)
    stopped: Mapped[bool] = mapped_column(Boolean, default=False)


class KernelBlob(Base):
    """Cubin bytes in the database, so every API host of a PostgreSQL deployment can serve them."""

    __tablename__ = "kernel_blobs"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    size: Mapped[int] = mapped_column(BigInteger)
    data: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class Kernel(Base):
    """A compiled variant: what it is, how it was built, and how to launch it. Bytes live in kernel_blobs."""

    __tablename__ = "kernels"

    sha256: Mapped[str] = mapped_column(ForeignKey("kernel_blobs.sha256"), primary_key=True)
    name: Mapped[str] = mapped_column(String(160))
    family: Mapped[str] = mapped_column(String(32))
    arch: Mapped[str] = mapped_column(String(16))
    config: Mapped[dict[str, Any]] = mapped_column(JSON)
    source_sha256: Mapped[str] = mapped_column(String(64))
    toolchain: Mapped[str] = mapped_column(String(128))
    compile_seconds: Mapped[float | None] = mapped_column(Float)
    compile_log: Mapped[str | None] = mapped_column(Text)
    launch: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class TuningResult(Base):
    """The winner for one spec key: insert-once, so a late duplicate worker cannot replace it."""

    __tablename__ = "tuning_results"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    spec_key: Mapped[str] = mapped_column(String(64), unique=True)
    op: Mapped[str] = mapped_column(String(16), index=True)
    spec: Mapped[dict[str, Any]] = mapped_column(JSON)
    arch: Mapped[str] = mapped_column(String(16), index=True)
    gpu: Mapped[str | None] = mapped_column(String(64))
    dtype: Mapped[str] = mapped_column(String(8), index=True)
    epilogue: Mapped[str] = mapped_column(String(32), index=True)
    toolchain: Mapped[str] = mapped_column(String(128))
    kernel_sha256: Mapped[str | None] = mapped_column(ForeignKey("kernels.sha256"))
    config: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    launch: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    kernel_time_us: Mapped[float | None] = mapped_column(Float)
    kernel_spread_us: Mapped[float | None] = mapped_column(Float)
    tflops: Mapped[float | None] = mapped_column(Float)
    baseline_library: Mapped[str | None] = mapped_column(String(64))
    baseline_time_us: Mapped[float | None] = mapped_column(Float)
    speedup: Mapped[float | None] = mapped_column(Float, index=True)
    recommendation: Mapped[str] = mapped_column(String(16), default="kiln")
    measured_gpu: Mapped[str] = mapped_column(String(64))
    measured_driver: Mapped[str] = mapped_column(String(32))
    measured_cuda: Mapped[str] = mapped_column(String(32))
    tuning_seconds: Mapped[float | None] = mapped_column(Float)
    candidates_total: Mapped[int] = mapped_column(Integer, default=0)
    job_id: Mapped[str | None] = mapped_column(String(32))
    worker_id: Mapped[str | None] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, index=True)

    candidates: Mapped[list[Candidate]] = relationship(back_populates="result", cascade="all, delete-orphan")


class Candidate(Base):
    """One measured (or rejected) variant of a tuning run, kept for the dashboard and for audits."""

    __tablename__ = "candidates"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    result_id: Mapped[int] = mapped_column(ForeignKey("tuning_results.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(160))
    config: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(24))  # timed, compile_failed, verify_failed, launch_failed, pruned
    reason: Mapped[str | None] = mapped_column(Text)
    kernel_sha256: Mapped[str | None] = mapped_column(String(64))
    compile_seconds: Mapped[float | None] = mapped_column(Float)
    time_us: Mapped[float | None] = mapped_column(Float)
    spread_us: Mapped[float | None] = mapped_column(Float)
    tflops: Mapped[float | None] = mapped_column(Float)

    result: Mapped[TuningResult] = relationship(back_populates="candidates")


class ApiToken(Base):
    """Only the sha256 of a token is stored: a leaked database does not leak credentials."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(64))
    token_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    scopes: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime)


class CacheStats(Base):
    """Lookups per hour, summed over API replicas: the dashboard's hit rate over time."""

    __tablename__ = "cache_stats"

    hour: Mapped[datetime] = mapped_column(DateTime, primary_key=True)
    hits: Mapped[int] = mapped_column(BigInteger, default=0)
    misses: Mapped[int] = mapped_column(BigInteger, default=0)


class IdempotencyRecord(Base):
    __tablename__ = "idempotency_keys"

    key: Mapped[str] = mapped_column(String(128), primary_key=True)
    token_id: Mapped[int | None] = mapped_column(Integer)
    request_sha256: Mapped[str] = mapped_column(String(64))
    status_code: Mapped[int] = mapped_column(Integer)
    response: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
