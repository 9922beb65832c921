"""GPU workers: register, lease, heartbeat, progress, results. Workers speak HTTP only, so a GPU
host needs no database credentials; every write names its lease token (fencing)."""

from __future__ import annotations

import hashlib

from fastapi import APIRouter, Response
from sqlalchemy import select, update

from service.api.deps import ReadSessionDep, SessionDep, SettingsDep, SubmitAuth, WorkerAuth
from service.api.errors import WITH_BODY, raises
from service.api.schemas import (
    FailIn,
    HeartbeatIn,
    HeartbeatOut,
    JobOut,
    LeaseOut,
    ProgressIn,
    ResultIn,
    WorkerOut,
    WorkerRegistration,
)
from service.api.views import job_out, worker_out
from service.db import kernels, queue, results
from service.db.errors import JobNotFound, KernelMissing, LeaseLost, WorkerNotFound
from service.db.models import Job, JobState, Worker, utcnow
from service.db.retry import RetryPolicy
from service.metrics import COMPILE_SECONDS, JOBS_FINISHED
from service.specs.target import arches_for_capability, normalize_gpu_name

router = APIRouter(tags=["workers"])


def _worker(session, worker_id: str) -> Worker:  # type: ignore[no-untyped-def]
    worker = session.get(Worker, worker_id)
    if worker is None:
        raise WorkerNotFound()
    return worker


@router.post("/workers/register", response_model=WorkerOut, responses=WITH_BODY, summary="Announce a GPU worker")
def register(body: WorkerRegistration, session: SessionDep, settings: SettingsDep, _auth: WorkerAuth) -> WorkerOut:
    tc = body.toolchain
    ident = f"{body.hostname}|{body.gpu_index}|{body.name}"
    worker_id = hashlib.sha256(ident.encode()).hexdigest()[:32]
    worker = session.get(Worker, worker_id)
    values = dict(
        name=body.name, hostname=body.hostname, gpu_name=normalize_gpu_name(body.gpu_name), gpu_index=body.gpu_index,
        arches=arches_for_capability(*body.compute_capability), sm_count=body.sm_count, driver=body.driver,
        cuda_version=body.cuda_version, toolchain=f"gen{tc.generator}-cutlass{tc.cutlass}-nvrtc{tc.nvrtc}",
        last_heartbeat_at=utcnow(), stopped=False,
    )
    if worker is None:
        worker = Worker(id=worker_id, registered_at=utcnow(), jobs_succeeded=0, jobs_failed=0, **values)
        session.add(worker)
    else:
        for k, v in values.items():
            setattr(worker, k, v)
    session.flush()
    return worker_out(worker, lease_seconds=settings.lease_seconds)


@router.get("/workers", response_model=list[WorkerOut], summary="Known workers and whether they are online")
def list_workers(session: ReadSessionDep, settings: SettingsDep, _auth: SubmitAuth) -> list[WorkerOut]:
    rows = session.scalars(select(Worker).order_by(Worker.last_heartbeat_at.desc())).all()
    return [worker_out(w, lease_seconds=settings.lease_seconds) for w in rows]


@router.post(
    "/workers/{worker_id}/lease",
    response_model=LeaseOut,
    responses={204: {"description": "nothing to do right now"}, **raises(WorkerNotFound)},
    summary="Lease the most urgent job this worker's arch and toolchain can run",
)
def lease(worker_id: str, session: SessionDep, settings: SettingsDep, _auth: WorkerAuth) -> LeaseOut | Response:
    worker = _worker(session, worker_id)
    job = queue.current_lease(session, worker=worker, lease_seconds=settings.lease_seconds)
    job = job or queue.claim(session, worker=worker, lease_seconds=settings.lease_seconds)
    if job is None:
        session.execute(update(Worker).where(Worker.id == worker_id).values(last_heartbeat_at=utcnow()))
        return Response(status_code=204)
    return LeaseOut(job=job_out(job), lease_token=job.lease_token or "", lease_seconds=settings.lease_seconds)


@router.post("/workers/{worker_id}/heartbeat", response_model=HeartbeatOut,
             responses=WITH_BODY | raises(WorkerNotFound), summary="Keep the worker and its leases alive")
def heartbeat(worker_id: str, body: HeartbeatIn, session: SessionDep, settings: SettingsDep, _auth: WorkerAuth) -> HeartbeatOut:
    _worker(session, worker_id)
    session.execute(update(Worker).where(Worker.id == worker_id).values(last_heartbeat_at=utcnow()))
    alive = {
        ref.job_id: queue.extend_lease(session, job_id=ref.job_id, token=ref.lease_token,
                                       lease_seconds=settings.lease_seconds)
        for ref in body.leases
    }
    return HeartbeatOut(alive=alive)


@router.post("/workers/{worker_id}/stop", status_code=204, responses=raises(WorkerNotFound), summary="A worker shutting down cleanly")
def stop(worker_id: str, session: SessionDep, _auth: WorkerAuth) -> Response:
    _worker(session, worker_id).stopped = True
    return Response(status_code=204)


@router.post("/jobs/{job_id}/progress", status_code=204, responses=WITH_BODY | raises(JobNotFound, LeaseLost),
             summary="Candidates generated/compiled/verified/timed")
def progress(job_id: str, body: ProgressIn, session: SessionDep, settings: SettingsDep, _auth: WorkerAuth) -> Response:
    queue.report_progress(
        session, job_id=job_id, token=body.lease_token, phase=body.phase, lease_seconds=settings.lease_seconds,
        counters={"generated": body.generated, "compiled": body.compiled, "verified": body.verified, "timed": body.timed},
    )
    return Response(status_code=204)


@router.post("/jobs/{job_id}/fail", response_model=JobOut, responses=WITH_BODY | raises(JobNotFound, LeaseLost),
             summary="Report a failed attempt (retried per policy)")
def fail(job_id: str, body: FailIn, session: SessionDep, settings: SettingsDep, _auth: WorkerAuth) -> JobOut:
    job = queue.mark_failed(
        session, job_id=job_id, token=body.lease_token, error=body.error, retryable=body.retryable,
        policy=RetryPolicy(base_seconds=settings.retry_backoff_seconds),
    )
    session.refresh(job)
    if job.state == JobState.failed:
        JOBS_FINISHED.labels(state="failed").inc()
    return job_out(job)


@router.post("/jobs/{job_id}/result", response_model=JobOut,
             responses=WITH_BODY | raises(JobNotFound, LeaseLost, KernelMissing), summary="Post the tuning result (insert-once by spec key)")
def post_result(job_id: str, body: ResultIn, session: SessionDep, _auth: WorkerAuth) -> JobOut:
    job = session.scalars(
        select(Job).where(Job.id == job_id, Job.lease_token == body.lease_token, Job.state == JobState.running)
        .with_for_update()
    ).first()
    if job is None:
        queue.get_job(session, job_id=job_id)  # 404 if it never existed
        raise LeaseLost()
    for i, k in enumerate(body.kernels):
        if not kernels.blob_exists(session, sha256=k.sha256):
            raise KernelMissing(f"kernel {k.sha256} was not uploaded (PUT /kernel/{{sha256}} first)",
                                loc=("body", "kernels", i, "sha256"))
        kernels.put_kernel(session, meta={**k.model_dump(), "toolchain": job.toolchain})
    uploaded_elsewhere = body.winner_sha256 and body.winner_sha256 not in {k.sha256 for k in body.kernels}
    if uploaded_elsewhere and body.winner_sha256 and not kernels.blob_exists(session, sha256=body.winner_sha256):
        raise KernelMissing(loc=("body", "winner_sha256"))
    speedup = None
    if body.kernel_time_us and body.baseline_time_us:
        speedup = body.baseline_time_us / body.kernel_time_us
    recommendation = "kiln" if body.winner_sha256 and (speedup is None or speedup >= 1.0) else "library"
    spec = job.spec
    row, _created = results.insert_once(session, values=dict(
        spec_key=job.spec_key, op=job.op, spec=spec, arch=job.arch, gpu=job.gpu, dtype=spec.get("dtype", ""),
        epilogue=spec.get("epilogue", "none"), toolchain=job.toolchain, kernel_sha256=body.winner_sha256,
        config=body.config, launch=body.launch, kernel_time_us=body.kernel_time_us,
        kernel_spread_us=body.kernel_spread_us, tflops=body.tflops, baseline_library=body.baseline_library,
        baseline_time_us=body.baseline_time_us, speedup=speedup, recommendation=recommendation,
        measured_gpu=body.measured.gpu, measured_driver=body.measured.driver, measured_cuda=body.measured.cuda,
        tuning_seconds=body.tuning_seconds, candidates_total=len(body.candidates), job_id=job.id,
        worker_id=job.worker_id, created_at=utcnow(),
    ), candidates=[c.model_dump() for c in body.candidates])
    for c in body.candidates:
        if c.compile_seconds is not None:
            COMPILE_SECONDS.labels(family=str(c.config.get("family", "unknown"))[:32]).observe(c.compile_seconds)
    done = queue.mark_succeeded(session, job_id=job_id, token=body.lease_token, result_id=row.id)
    JOBS_FINISHED.labels(state="succeeded").inc()
    return job_out(done, row)
