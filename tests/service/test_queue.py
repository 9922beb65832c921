"""Queue semantics: leases, fencing, expiry, retries, routing. Expiry is tested by back-dating."""

from __future__ import annotations

from datetime import timedelta

from fastapi.testclient import TestClient
from sqlalchemy import update

from service.db import queue
from service.db.engine import Database
from service.db.models import Job, JobState, utcnow
from service.db.retry import RetryPolicy
from tests.service.helpers import GEMM, cubin, finish, lease, register, result_body


def _expire(db: Database, job_id: str) -> None:
    with db.transaction() as s:
        s.execute(update(Job).where(Job.id == job_id).values(lease_expires_at=utcnow() - timedelta(seconds=1)))


def _reap(db: Database) -> int:
    with db.transaction() as s:
        return queue.requeue_expired(s, policy=RetryPolicy(base_seconds=0))


def test_expired_lease_goes_back_and_the_old_holder_is_fenced(client: TestClient, worker_client: TestClient, db: Database) -> None:
    job_id = client.post("/tune", json={"problems": [GEMM]}).json()["items"][0]["job_id"]
    w1, w2 = register(worker_client, "w1"), register(worker_client, "w2")
    first = lease(worker_client, w1)
    assert first and lease(worker_client, w2) is None  # nothing else to lease
    _expire(db, job_id)
    assert _reap(db) == 1
    job = client.get(f"/jobs/{job_id}").json()
    assert job["state"] == "queued" and job["attempts"] == 1 and "lease expired" in job["error"]

    second = lease(worker_client, w2)
    assert second and second["job"]["id"] == job_id and second["job"]["attempts"] == 2
    # The first worker wakes up: every write it tries is refused, nothing of it lands.
    stale = first["lease_token"]
    assert worker_client.post(f"/jobs/{job_id}/progress", json={"lease_token": stale, "compiled": 3}).status_code == 409
    hb = worker_client.post(f"/workers/{w1}/heartbeat", json={"leases": [{"job_id": job_id, "lease_token": stale}]})
    assert hb.json()["alive"] == {job_id: False}
    sha, data = cubin("stale")
    worker_client.put(f"/kernel/{sha}", content=data)
    assert worker_client.post(f"/jobs/{job_id}/result", json=result_body(stale, "stale", sha)).status_code == 409
    assert worker_client.post(f"/jobs/{job_id}/fail", json={"lease_token": stale, "error": "x"}).status_code == 409
    finish(worker_client, second, tag="winner")
    done = client.get(f"/jobs/{job_id}").json()
    assert done["state"] == "succeeded" and done["result"]["job_id"] == job_id
    assert client.get("/results").json()["total"] == 1


def test_max_attempts_then_failed_with_last_error(client: TestClient, worker_client: TestClient, db: Database) -> None:
    job_id = client.post("/tune", json={"problems": [GEMM]}).json()["items"][0]["job_id"]
    wid = register(worker_client)
    for attempt in (1, 2, 3):
        leased = lease(worker_client, wid)
        assert leased and leased["job"]["attempts"] == attempt
        r = worker_client.post(f"/jobs/{job_id}/fail", json={"lease_token": leased["lease_token"], "error": f"boom {attempt}"})
        assert r.status_code == 200
    job = client.get(f"/jobs/{job_id}").json()
    assert job["state"] == "failed" and job["error"] == "boom 3"
    assert lease(worker_client, wid) is None


def test_non_retryable_failure_fails_at_once(client: TestClient, worker_client: TestClient) -> None:
    job_id = client.post("/tune", json={"problems": [GEMM]}).json()["items"][0]["job_id"]
    leased = lease(worker_client, register(worker_client))
    worker_client.post(f"/jobs/{job_id}/fail", json={"lease_token": leased["lease_token"], "error": "no template", "retryable": False})
    assert client.get(f"/jobs/{job_id}").json()["state"] == "failed"


def test_backoff_delays_the_next_lease(db: Database) -> None:
    now = utcnow()
    d = RetryPolicy(base_seconds=5).decide(attempts=2, max_attempts=3, retryable=True, now=now)
    assert d.retry and d.run_after == now + timedelta(seconds=10)
    assert not RetryPolicy().decide(attempts=3, max_attempts=3, retryable=True, now=now).retry
    assert RetryPolicy(base_seconds=100, cap_seconds=150).decide(attempts=9, max_attempts=10, retryable=True, now=now).run_after == now + timedelta(seconds=150)


def test_routing_by_arch_gpu_and_toolchain(client: TestClient, worker_client: TestClient, db: Database) -> None:
    a80 = client.post("/tune", json={"problems": [GEMM], "target": {"arch": "sm_80"}}).json()["items"][0]["job_id"]
    h200 = client.post("/tune", json={"problems": [GEMM], "target": {"arch": "sm_90a", "gpu": "NVIDIA H200"}}).json()["items"][0]["job_id"]
    hopper = register(worker_client, "h100", gpu="NVIDIA H100")
    assert lease(worker_client, hopper) is None  # sm_80 cubins don't run on 9.0; the H200 job wants an H200
    ampere = register(worker_client, "a100", cc=(8, 0), gpu="NVIDIA A100")
    assert lease(worker_client, ampere)["job"]["id"] == a80
    h = register(worker_client, "h200", gpu="NVIDIA H200")
    assert lease(worker_client, h)["job"]["id"] == h200
    with db.transaction() as s:
        s.execute(update(Job).values(state=JobState.queued, toolchain="gen0-old"))
    assert lease(worker_client, h) is None  # kernels from another toolchain would not match the key


def test_priority_then_age(client: TestClient, worker_client: TestClient) -> None:
    low = client.post("/tune", json={"problems": [GEMM]}).json()["items"][0]["job_id"]
    high = client.post("/tune", json={"problems": [{**GEMM, "m": 8}], "priority": 10}).json()["items"][0]["job_id"]
    assert lease(worker_client, register(worker_client, "w1"))["job"]["id"] == high
    assert lease(worker_client, register(worker_client, "w2"))["job"]["id"] == low


def test_cancel_revokes_the_running_lease(client: TestClient, worker_client: TestClient) -> None:
    job_id = client.post("/tune", json={"problems": [GEMM]}).json()["items"][0]["job_id"]
    wid = register(worker_client)
    leased = lease(worker_client, wid)
    client.post(f"/jobs/{job_id}/cancel")
    hb = worker_client.post(f"/workers/{wid}/heartbeat", json={"leases": [{"job_id": job_id, "lease_token": leased["lease_token"]}]})
    assert hb.json()["alive"][job_id] is False
    sha, data = cubin("late")
    worker_client.put(f"/kernel/{sha}", content=data)
    assert worker_client.post(f"/jobs/{job_id}/result", json=result_body(leased["lease_token"], "late", sha)).status_code == 409


def test_results_are_insert_once_per_key(client: TestClient, worker_client: TestClient, db: Database) -> None:
    """Two jobs for one key (the first cancelled mid-run is retried): the first stored winner stays."""
    wid = register(worker_client)
    job_id = client.post("/tune", json={"problems": [GEMM]}).json()["items"][0]["job_id"]
    first = lease(worker_client, wid)
    finish(worker_client, first, tag="first", kernel_us=10.0)
    with db.transaction() as s:  # simulate a duplicate job for the same key (e.g. a forced re-tune)
        s.execute(update(Job).where(Job.id == job_id).values(state=JobState.failed))
    retried = client.post(f"/jobs/{job_id}/retry").json()
    second = lease(worker_client, wid)
    assert second["job"]["id"] == retried["id"]
    finish(worker_client, second, tag="second", kernel_us=5.0)
    assert client.get("/results").json()["items"][0]["kernel_time_us"] == 10.0


def test_lease_is_idempotent_for_the_holder(client: TestClient, worker_client: TestClient) -> None:
    """A retried or restarted worker gets its own running job back, not a second one."""
    client.post("/tune", json={"problems": [GEMM, {**GEMM, "m": 8}]})
    wid = register(worker_client)
    first = lease(worker_client, wid)
    again = lease(worker_client, wid)
    assert again["job"]["id"] == first["job"]["id"] and again["lease_token"] == first["lease_token"]
    register(worker_client)  # a restart re-registers under the same identity
    assert lease(worker_client, wid)["job"]["id"] == first["job"]["id"]
    finish(worker_client, first)
    assert lease(worker_client, wid)["job"]["id"] != first["job"]["id"]
