"""The worker loop: register, lease, run the step while a heartbeat thread keeps the lease, post.

A worker may die at any instruction. Nothing is lost because the service owns all state: a
lease that stops being extended expires and the job goes back to the queue; and nothing is
written twice because every write carries the lease token (a worker that lost its lease gets
409 and drops its work).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import socket
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Any

from service.versions import toolchain
from worker.client import LeaseLostError, ServiceClient
from worker.step import Cancelled, StepFailed, StepOutcome, TuningStep

log = logging.getLogger("kiln.worker")


@dataclass
class WorkerOptions:
    name: str = "worker"
    hostname: str = socket.gethostname()
    idle_sleep: float = 0.5
    max_jobs: int | None = None  # stop after this many jobs (tests, `--once`)
    exit_when_idle: bool = False


class _Lease:
    def __init__(self, job_id: str, token: str) -> None:
        self.job_id = job_id
        self.token = token
        self.lost = threading.Event()


class Heartbeat:
    """Extends the current lease every third of its length; flags it lost when the service says so."""

    def __init__(self, client: ServiceClient, worker_id: str, interval: float) -> None:
        self.client = client
        self.worker_id = worker_id
        self.interval = interval
        self.current: _Lease | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="kiln-heartbeat", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            lease = self.current
            try:
                alive = self.client.heartbeat(self.worker_id, [(lease.job_id, lease.token)] if lease else [])
            except Exception as exc:  # keep beating; the lease may still be saved by the next beat
                log.warning("heartbeat failed: %s", exc)
                continue
            if lease is not None and alive.get(lease.job_id) is False:
                lease.lost.set()


class Worker:
    def __init__(self, client: ServiceClient, step: TuningStep, options: WorkerOptions) -> None:
        self.client = client
        self.step = step
        self.options = options
        self.worker_id: str | None = None
        self._stop = threading.Event()

    def request_stop(self) -> None:
        self._stop.set()

    def run(self) -> int:
        dev = self.step.device()
        info = self.client.register(self.options.name, self.options.hostname, dev)
        self.worker_id = info["id"]
        log.info("registered %s as %s (%s, %s)", self.options.name, self.worker_id, dev.gpu_name, info["arches"])
        lease_seconds = 60.0
        beat = Heartbeat(self.client, self.worker_id, interval=lease_seconds / 3)
        beat.start()
        done = 0
        try:
            while not self._stop.is_set():
                leased = self.client.lease(self.worker_id)
                if leased is None:
                    if self.options.exit_when_idle:
                        break
                    self._stop.wait(self.options.idle_sleep)
                    continue
                beat.interval = max(0.2, float(leased["lease_seconds"]) / 3)
                lease = _Lease(leased["job"]["id"], leased["lease_token"])
                beat.current = lease
                try:
                    self._work(leased["job"], lease)
                finally:
                    beat.current = None
                done += 1
                if self.options.max_jobs is not None and done >= self.options.max_jobs:
                    break
        finally:
            beat.stop()
            self.client.stop(self.worker_id)
            close = getattr(self.step, "close", None)  # e.g. the GPU step's measurement process
            if close is not None:
                close()
        return done

    def _work(self, job: dict[str, Any], lease: _Lease) -> None:
        started = time.monotonic()

        def progress(**counters: Any) -> None:
            if lease.lost.is_set() or self._stop.is_set():
                raise Cancelled()
            try:
                self.client.progress(job["id"], lease.token, **counters)
            except LeaseLostError as exc:
                lease.lost.set()
                raise Cancelled() from exc

        try:
            outcome = self.step.run(job, progress)
            if lease.lost.is_set():
                raise Cancelled()
            self._post(job, lease, outcome, time.monotonic() - started)
        except (Cancelled, LeaseLostError):
            log.warning("job %s: lease lost or cancelled; dropping its work", job["id"])
        except StepFailed as exc:
            self._fail(job, lease, str(exc), retryable=exc.retryable)
        except Exception:
            self._fail(job, lease, traceback.format_exc(limit=20), retryable=True)

    def _fail(self, job: dict[str, Any], lease: _Lease, error: str, *, retryable: bool) -> None:
        log.error("job %s failed: %s", job["id"], error.splitlines()[-1] if error else "")
        with contextlib.suppress(LeaseLostError):
            self.client.fail(job["id"], lease.token, error, retryable=retryable)

    def _post(self, job: dict[str, Any], lease: _Lease, out: StepOutcome, seconds: float) -> None:
        kernels = []
        for k in out.kernels:
            sha = hashlib.sha256(k.cubin).hexdigest()
            self.client.upload_kernel(sha, k.cubin)
            kernels.append({"sha256": sha, **k.meta})
        winner = kernels[out.winner_index]["sha256"] if out.winner_index is not None else None
        dev = self.step.device()
        body = {
            "lease_token": lease.token, "kernels": kernels, "winner_sha256": winner, "config": out.config,
            "launch": out.launch, "kernel_time_us": out.kernel_time_us, "kernel_spread_us": out.kernel_spread_us,
            "tflops": out.tflops, "baseline_library": out.baseline_library, "baseline_time_us": out.baseline_time_us,
            "tuning_seconds": seconds, "candidates": out.candidates,
            "measured": {"gpu": dev.gpu_name, "driver": dev.driver, "cuda": dev.cuda_version},
        }
        self.client.post_result(job["id"], body)
        log.info("job %s done in %.1fs (toolchain %s)", job["id"], seconds, toolchain().fingerprint)
