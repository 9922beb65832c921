"""Clients and admins: job state, progress, cancel, retry."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from sqlalchemy import select

from service.api.deps import ReadSessionDep, SessionDep, SubmitAuth
from service.api.errors import raises
from service.api.schemas import MAX_OFFSET, JobOut
from service.api.views import job_out
from service.db import queue
from service.db.errors import JobNotCancellable, JobNotFound, JobNotRetryable
from service.db.models import Job, JobState, TuningResult

router = APIRouter(tags=["jobs"])


@router.get("/jobs/{job_id}", response_model=JobOut, responses=raises(JobNotFound), summary="State, progress, error and result of a job")
def get_job(job_id: str, session: ReadSessionDep, _auth: SubmitAuth) -> JobOut:
    job = queue.get_job(session, job_id=job_id)
    result = session.get(TuningResult, job.result_id) if job.result_id else None
    return job_out(job, result)


@router.get("/jobs", response_model=list[JobOut], summary="Recent jobs, newest first")
def list_jobs(
    session: ReadSessionDep, _auth: SubmitAuth,
    state: JobState | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> list[JobOut]:
    stmt = select(Job)
    if state is not None:
        stmt = stmt.where(Job.state == state)
    rows = session.scalars(stmt.order_by(Job.created_at.desc(), Job.id).offset(offset).limit(limit)).all()
    return [job_out(j) for j in rows]


@router.post("/jobs/{job_id}/cancel", response_model=JobOut, responses=raises(JobNotFound, JobNotCancellable),
             summary="Cancel a queued or running job")
def cancel_job(job_id: str, session: SessionDep, _auth: SubmitAuth) -> JobOut:
    return job_out(queue.cancel(session, job_id=job_id))


@router.post("/jobs/{job_id}/retry", response_model=JobOut, responses=raises(JobNotFound, JobNotRetryable),
             summary="Queue a failed or cancelled job again")
def retry_job(job_id: str, session: SessionDep, _auth: SubmitAuth) -> JobOut:
    job, _ = queue.retry(session, job_id=job_id)
    return job_out(job)
