"""The durable job queue: submit with de-duplication, lease, heartbeat, progress, finish, reap.

At-least-once delivery, exactly-once effect: a job may be executed again after a lost lease,
but every write a worker makes names its lease token in the WHERE clause (fencing), so only
the current holder's writes land, and results are insert-once by spec key.
"""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from service.db.errors import JobNotCancellable, JobNotFound, JobNotRetryable, LeaseLost
from service.db.models import ACTIVE_STATES, Job, JobState, Worker, utcnow
from service.db.retry import RetryPolicy


def new_id() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True)
class NewJob:
    spec_key: str
    op: str
    spec: dict[str, Any]
    arch: str
    gpu: str | None
    toolchain: str
    priority: int = 0
    max_attempts: int = 3


def find_active_job(session: Session, *, spec_key: str) -> Job | None:
    return session.scalars(select(Job).where(Job.spec_key == spec_key, Job.state.in_(ACTIVE_STATES))).first()


def submit(session: Session, *, job: NewJob) -> tuple[Job, bool]:
    """Queue a job, or join the live one for the same spec. Returns (job, created).

    The partial unique index on active spec keys makes this race-free on both backends: the
    loser of two concurrent inserts gets an IntegrityError and reads the winner's job.
    """
    existing = find_active_job(session, spec_key=job.spec_key)
    if existing is not None:
        return existing, False
    row = Job(
        id=new_id(), spec_key=job.spec_key, op=job.op, spec=job.spec, arch=job.arch, gpu=job.gpu,
        toolchain=job.toolchain, priority=job.priority, max_attempts=job.max_attempts,
        state=JobState.queued, run_after=utcnow(), created_at=utcnow(),
    )
    try:
        with session.begin_nested():
            session.add(row)
            session.flush()
    except IntegrityError:
        existing = find_active_job(session, spec_key=job.spec_key)
        if existing is None:
            raise
        return existing, False
    return row, True


def current_lease(session: Session, *, worker: Worker, lease_seconds: float, now: datetime | None = None) -> Job | None:
    """The job this worker already holds, with its lease renewed.

    A worker runs one job at a time, so a second lease call while it holds one is a retry (the
    first response was lost) or a restart: handing back the same job and token makes leasing
    idempotent, where a fresh job would orphan the first until its lease ran out.
    """
    now = now or utcnow()
    job = session.scalars(
        select(Job).where(Job.worker_id == worker.id, Job.state == JobState.running).order_by(Job.started_at.desc())
    ).first()
    if job is not None:
        job.lease_expires_at = now + timedelta(seconds=lease_seconds)
        session.flush()
    return job


def claim(
    session: Session, *, worker: Worker, lease_seconds: float, now: datetime | None = None
) -> Job | None:
    """Lease the most urgent queued job this worker can run, marking it running in one statement.

    PostgreSQL: the inner SELECT takes a row lock with SKIP LOCKED, so concurrent workers pick
    different rows without waiting. SQLite: FOR UPDATE is not rendered, and the transaction
    began with BEGIN IMMEDIATE, so the single writer makes the read-then-update atomic.
    """
    now = now or utcnow()
    candidate = (
        select(Job.id)
        .where(
            Job.state == JobState.queued,
            Job.run_after <= now,
            Job.arch.in_(list(worker.arches)),
            Job.toolchain == worker.toolchain,
            or_(Job.gpu.is_(None), Job.gpu == worker.gpu_name),
        )
        .order_by(Job.priority.desc(), Job.created_at, Job.id)
        .limit(1)
        .with_for_update(skip_locked=True)
        .scalar_subquery()
    )
    token = secrets.token_hex(16)
    stmt = (
        update(Job)
        .where(Job.id == candidate, Job.state == JobState.queued)
        .values(
            state=JobState.running, lease_token=token, lease_expires_at=now + timedelta(seconds=lease_seconds),
            worker_id=worker.id, attempts=Job.attempts + 1, started_at=now, error=None,
            generated=0, compiled=0, verified=0, timed=0, phase="leased",
        )
        .returning(Job)
        .execution_options(synchronize_session=False)
    )
    job = session.scalars(stmt).first()
    if job is not None:
        session.execute(update(Worker).where(Worker.id == worker.id).values(current_job_id=job.id, last_heartbeat_at=now))
    return job


def _fenced(job_id: str, token: str) -> Any:
    return and_(Job.id == job_id, Job.lease_token == token, Job.state == JobState.running)


def _rowcount(result: Any) -> int:
    """Rows an UPDATE matched (a CursorResult's; typed as a plain Result by session.execute)."""
    return int(result.rowcount)


def extend_lease(session: Session, *, job_id: str, token: str, lease_seconds: float, now: datetime | None = None) -> bool:
    now = now or utcnow()
    res = session.execute(
        update(Job).where(_fenced(job_id, token)).values(lease_expires_at=now + timedelta(seconds=lease_seconds))
    )
    return _rowcount(res) == 1


def report_progress(
    session: Session, *, job_id: str, token: str, counters: dict[str, int], phase: str | None,
    lease_seconds: float, now: datetime | None = None,
) -> None:
    """Progress doubles as a heartbeat for the job it reports on."""
    now = now or utcnow()
    values: dict[str, Any] = {k: v for k, v in counters.items() if k in ("generated", "compiled", "verified", "timed")}
    values["lease_expires_at"] = now + timedelta(seconds=lease_seconds)
    if phase is not None:
        values["phase"] = phase
    res = session.execute(update(Job).where(_fenced(job_id, token)).values(**values))
    if _rowcount(res) != 1:
        raise LeaseLost()


def mark_succeeded(session: Session, *, job_id: str, token: str, result_id: int, now: datetime | None = None) -> Job:
    now = now or utcnow()
    job = session.scalars(
        update(Job).where(_fenced(job_id, token))
        .values(state=JobState.succeeded, result_id=result_id, finished_at=now, lease_token=None,
                lease_expires_at=None, phase="done")
        .returning(Job).execution_options(synchronize_session=False)
    ).first()
    if job is None:
        raise LeaseLost()
    _release_worker(session, job=job, succeeded=True)
    return job


def mark_failed(
    session: Session, *, job_id: str, token: str, error: str, retryable: bool, policy: RetryPolicy,
    now: datetime | None = None,
) -> Job:
    now = now or utcnow()
    job = session.scalars(select(Job).where(_fenced(job_id, token)).with_for_update()).first()
    if job is None:
        raise LeaseLost()
    _finish_attempt(session, job=job, error=error, retryable=retryable, policy=policy, now=now)
    return job


def _finish_attempt(session: Session, *, job: Job, error: str, retryable: bool, policy: RetryPolicy, now: datetime) -> None:
    decision = policy.decide(attempts=job.attempts, max_attempts=job.max_attempts, retryable=retryable, now=now)
    values: dict[str, Any] = {"lease_token": None, "lease_expires_at": None, "error": error[:20000]}
    if decision.retry:
        values.update(state=JobState.queued, run_after=decision.run_after, phase="retry_wait")
    else:
        values.update(state=JobState.failed, finished_at=now, phase="failed")
    session.execute(update(Job).where(Job.id == job.id, Job.state == JobState.running).values(**values))
    _release_worker(session, job=job, succeeded=False if not decision.retry else None)


def _release_worker(session: Session, *, job: Job, succeeded: bool | None) -> None:
    if job.worker_id is None:
        return
    values: dict[str, Any] = {"current_job_id": None}
    if succeeded is True:
        values["jobs_succeeded"] = Worker.jobs_succeeded + 1
    elif succeeded is False:
        values["jobs_failed"] = Worker.jobs_failed + 1
    session.execute(update(Worker).where(Worker.id == job.worker_id, Worker.current_job_id == job.id).values(**values))


def requeue_expired(session: Session, *, policy: RetryPolicy, now: datetime | None = None) -> int:
    """Return jobs whose lease ran out to the queue (or fail them after max attempts)."""
    now = now or utcnow()
    expired = session.scalars(
        select(Job).where(Job.state == JobState.running, Job.lease_expires_at < now)
        .with_for_update(skip_locked=True)
    ).all()
    for job in expired:
        _finish_attempt(
            session, job=job, error=f"lease expired: worker {job.worker_id} stopped heartbeating (attempt {job.attempts})",
            retryable=True, policy=policy, now=now,
        )
    return len(expired)


def cancel(session: Session, *, job_id: str, now: datetime | None = None) -> Job:
    now = now or utcnow()
    job = session.get(Job, job_id, with_for_update=True)
    if job is None:
        raise JobNotFound()
    if job.state not in ACTIVE_STATES:
        raise JobNotCancellable()
    job.state = JobState.cancelled
    job.finished_at = now
    job.lease_token = None
    job.lease_expires_at = None
    job.phase = "cancelled"
    session.flush()
    return job


def retry(session: Session, *, job_id: str) -> tuple[Job, bool]:
    """Re-queue a failed or cancelled job as a new job (history stays as it was)."""
    job = session.get(Job, job_id)
    if job is None:
        raise JobNotFound()
    if job.state not in (JobState.failed, JobState.cancelled):
        raise JobNotRetryable()
    return submit(session, job=NewJob(
        spec_key=job.spec_key, op=job.op, spec=job.spec, arch=job.arch, gpu=job.gpu,
        toolchain=job.toolchain, priority=job.priority, max_attempts=job.max_attempts,
    ))


def get_job(session: Session, *, job_id: str) -> Job:
    job = session.get(Job, job_id)
    if job is None:
        raise JobNotFound()
    return job


def queue_depth(session: Session) -> dict[str, int]:
    rows = session.execute(select(Job.state, func.count()).group_by(Job.state)).all()
    return {str(state.value if hasattr(state, "value") else state): n for state, n in rows}
