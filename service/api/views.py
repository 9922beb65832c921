"""Table rows to response bodies, in one place so every endpoint shows a record the same way."""

from __future__ import annotations

from datetime import timedelta

from service.api.schemas import Baseline, JobOut, KernelRef, MeasuredOn, Progress, ResultOut, WorkerOut
from service.db.models import Job, TuningResult, Worker, utcnow


def result_out(row: TuningResult) -> ResultOut:
    kernel = None
    if row.kernel_sha256:
        kernel = KernelRef(sha256=row.kernel_sha256, url=f"/kernel/{row.kernel_sha256}",
                           meta_url=f"/kernel/{row.kernel_sha256}/meta")
    return ResultOut(
        spec_key=row.spec_key, op=row.op, spec=row.spec, target={"arch": row.arch, "gpu": row.gpu},
        kernel=kernel, config=row.config, launch=row.launch, kernel_time_us=row.kernel_time_us,
        kernel_spread_us=row.kernel_spread_us, tflops=row.tflops,
        baseline=Baseline(library=row.baseline_library, time_us=row.baseline_time_us),
        speedup=row.speedup, recommendation=row.recommendation,
        measured_on=MeasuredOn(gpu=row.measured_gpu, driver=row.measured_driver, cuda=row.measured_cuda),
        tuning_seconds=row.tuning_seconds, candidates_total=row.candidates_total, job_id=row.job_id,
        created_at=row.created_at,
    )


def job_out(job: Job, result: TuningResult | None = None) -> JobOut:
    return JobOut(
        id=job.id, spec_key=job.spec_key, op=job.op, spec=job.spec, target={"arch": job.arch, "gpu": job.gpu},
        state=job.state.value if hasattr(job.state, "value") else str(job.state), priority=job.priority,
        attempts=job.attempts, max_attempts=job.max_attempts,
        progress=Progress(generated=job.generated, compiled=job.compiled, verified=job.verified, timed=job.timed,
                          phase=job.phase),
        error=job.error, worker_id=job.worker_id, created_at=job.created_at, started_at=job.started_at,
        finished_at=job.finished_at, result=result_out(result) if result is not None else None,
    )


def worker_out(worker: Worker, *, lease_seconds: float) -> WorkerOut:
    online = not worker.stopped and utcnow() - worker.last_heartbeat_at < timedelta(seconds=2 * lease_seconds)
    return WorkerOut(
        id=worker.id, name=worker.name, hostname=worker.hostname, gpu_name=worker.gpu_name,
        gpu_index=worker.gpu_index, arches=list(worker.arches), sm_count=worker.sm_count, driver=worker.driver,
        cuda_version=worker.cuda_version, toolchain=worker.toolchain, registered_at=worker.registered_at,
        last_heartbeat_at=worker.last_heartbeat_at, online=online, current_job_id=worker.current_job_id,
        jobs_succeeded=worker.jobs_succeeded, jobs_failed=worker.jobs_failed,
    )
