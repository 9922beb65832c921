"""POST /tune, /lookup, GET /jobs, /results through the real app on SQLite and PostgreSQL."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.service.helpers import CONV, GEMM, finish, lease, register


def test_tune_queues_then_serves_from_cache(client: TestClient, worker_client: TestClient) -> None:
    resp = client.post("/tune", json={"problems": [GEMM, CONV], "target": {"arch": "sm_90a"}})
    assert resp.status_code == 202, resp.text
    items = resp.json()["items"]
    assert [i["status"] for i in items] == ["queued", "queued"]

    wid = register(worker_client)
    leased = lease(worker_client, wid)
    assert leased is not None and leased["job"]["id"] == items[0]["job_id"]
    finish(worker_client, leased)

    job = client.get(f"/jobs/{items[0]['job_id']}").json()
    assert job["state"] == "succeeded"
    assert job["result"]["speedup"] == 12.0 / 10.0 and job["result"]["recommendation"] == "kiln"

    again = client.post("/tune", json={"problems": [GEMM], "target": {"arch": "sm_90a"}})
    assert again.status_code == 200
    assert again.json()["items"][0]["status"] == "cached"
    assert again.json()["items"][0]["result"]["kernel"]["sha256"] == job["result"]["kernel"]["sha256"]

    found = client.post("/lookup", json={"problem": GEMM, "target": {"arch": "sm_90a"}})
    assert found.status_code == 200 and found.json()["baseline"]["library"] == "cublas"


def test_identical_spec_joins_the_live_job(client: TestClient) -> None:
    a = client.post("/tune", json={"problems": [GEMM]}).json()["items"][0]
    b = client.post("/tune", json={"problems": [dict(reversed(list(GEMM.items())))]}).json()["items"][0]
    assert a["job_id"] == b["job_id"] and b["joined_existing"]
    same_batch = client.post("/tune", json={"problems": [CONV, CONV]}).json()["items"]
    assert same_batch[0]["job_id"] == same_batch[1]["job_id"]


def test_default_target_is_the_configured_arch(client: TestClient) -> None:
    job_id = client.post("/tune", json={"problems": [GEMM]}).json()["items"][0]["job_id"]
    assert client.get(f"/jobs/{job_id}").json()["target"] == {"arch": "sm_90a", "gpu": None}


def test_lookup_404_says_whether_it_is_being_tuned(client: TestClient) -> None:
    miss = client.post("/lookup", json={"problem": GEMM})
    assert miss.status_code == 404 and miss.json()["tuning"] is False
    job_id = client.post("/tune", json={"problems": [GEMM]}).json()["items"][0]["job_id"]
    pending = client.post("/lookup", json={"problem": GEMM})
    assert pending.status_code == 404 and pending.json() == {
        "detail": f"not tuned yet: job {job_id} is tuning it", "spec_key": pending.json()["spec_key"],
        "tuning": True, "job_id": job_id}


def test_idempotency_key_replays_and_refuses_a_different_body(client: TestClient) -> None:
    h = {"Idempotency-Key": "ci-run-42"}
    first = client.post("/tune", json={"problems": [GEMM]}, headers=h)
    client.post(f"/jobs/{first.json()['items'][0]['job_id']}/cancel")
    replay = client.post("/tune", json={"problems": [GEMM]}, headers=h)
    assert replay.status_code == first.status_code and replay.json() == first.json()
    other = client.post("/tune", json={"problems": [CONV]}, headers=h)
    assert other.status_code == 422 and "Idempotency-Key" in other.text


def test_bad_input_is_a_4xx_naming_the_field(client: TestClient) -> None:
    r = client.post("/tune", json={"problems": [{**GEMM, "m": 0}]})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"][-1] == "m"
    r = client.post("/tune", json={"problems": [{**GEMM, "epilogue": "bias;exit(1)"}]})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"][-1] == "epilogue"
    r = client.post("/tune", json={"problems": [GEMM], "target": {"arch": "sm_75"}})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"][-1] == "arch"
    r = client.post("/tune", json={"problems": []})
    assert r.status_code == 422 and "problems" in r.json()["detail"][0]["loc"]
    r = client.post("/tune", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422
    r = client.post("/tune", json={"problems": [{**CONV, "groups": 4}]})
    assert r.status_code == 422 and "groups > 1" in r.text and r.json()["detail"][0]["loc"][-1] == "groups"
    r = client.post("/tune", json={"problems": [{**CONV, "epilogue": "bias_residual_add_relu"}]})
    assert r.status_code == 422 and "one source operand" in r.text and r.json()["detail"][0]["loc"][-1] == "epilogue"
    r = client.post("/tune", json={"problems": [GEMM] * 257})
    assert r.status_code == 422 and "at most 256" in r.text
    assert client.get("/jobs/nope").status_code == 404


def test_oversized_body_is_413(client: TestClient) -> None:
    big = {"problems": [GEMM], "pad": "x" * (2 << 20)}
    assert client.post("/tune", json=big).status_code == 413


def test_cancel_and_retry(client: TestClient) -> None:
    job_id = client.post("/tune", json={"problems": [GEMM]}).json()["items"][0]["job_id"]
    assert client.post(f"/jobs/{job_id}/cancel").json()["state"] == "cancelled"
    assert client.post(f"/jobs/{job_id}/cancel").status_code == 409
    again = client.post(f"/jobs/{job_id}/retry").json()
    assert again["state"] == "queued" and again["id"] != job_id


def test_results_history_is_paged_filtered_and_sorted(client: TestClient, worker_client: TestClient) -> None:
    wid = register(worker_client)
    for i, m in enumerate((128, 256, 512)):
        client.post("/tune", json={"problems": [{**GEMM, "m": m}]})
        finish(worker_client, lease(worker_client, wid), tag=str(i), kernel_us=10.0 + i)
    client.post("/tune", json={"problems": [CONV]})
    finish(worker_client, lease(worker_client, wid), tag="conv")
    page = client.get("/results", params={"op": "gemm", "sort": "kernel_time_us", "order": "asc", "limit": 2}).json()
    assert page["total"] == 3 and [r["kernel_time_us"] for r in page["items"]] == [10.0, 11.0]
    assert client.get("/results", params={"op": "conv2d"}).json()["total"] == 1
    assert client.get("/results", params={"min_speedup": 1.15}).json()["total"] == 2
    assert client.get("/results", params={"epilogue": "nope"}).status_code == 422
    key = page["items"][0]["spec_key"]
    assert client.get(f"/results/{key}").json()["spec_key"] == key


def test_health_ready_metrics(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json()["status"] == "ready"
    client.post("/tune", json={"problems": [GEMM]})
    text = client.get("/metrics").text
    assert 'kiln_jobs{state="queued"} 1.0' in text and "kiln_cache_lookups_total" in text
    assert client.get("/openapi.json").status_code == 200


def test_lookups_are_counted_per_hour(client: TestClient, worker_client: TestClient, app, db) -> None:  # type: ignore[no-untyped-def]
    from service.db.cache_stats import hourly

    client.post("/tune", json={"problems": [GEMM]})
    finish(worker_client, lease(worker_client, register(worker_client)))
    client.post("/lookup", json={"problem": GEMM})
    client.post("/lookup", json={"problem": CONV})
    with db.transaction() as s:
        app.state.lookup_counter.flush(s)
    with db.transaction() as s:
        app.state.lookup_counter.count(hit=True)
        app.state.lookup_counter.flush(s)  # a second flush adds to the same hour
    with db.read_session() as s:
        hours = hourly(s)
    assert sum(h for _, h, _ in hours) == 2 and sum(m for _, _, m in hours) == 2  # the /tune miss + the CONV miss


def test_writes_commit_before_the_response_is_sent() -> None:
    """Read-your-writes: the write session is a function-scoped dependency (see service/api/deps.py)."""
    from service.api.deps import ReadSessionDep, SessionDep

    for alias in (SessionDep, ReadSessionDep):
        assert alias.__metadata__[0].scope == "function"


def test_gpu_specific_lookup_falls_back_to_the_arch_only_when_asked(client: TestClient, worker_client: TestClient) -> None:
    client.post("/tune", json={"problems": [GEMM], "target": {"arch": "sm_90a"}})
    finish(worker_client, lease(worker_client, register(worker_client)))
    h100 = {"arch": "sm_90a", "gpu": "NVIDIA H100"}
    strict = client.post("/lookup", json={"problem": GEMM, "target": h100})
    assert strict.status_code == 404  # measured on an H200: not served as tuned for an H100
    fallback = client.post("/lookup", json={"problem": GEMM, "target": h100, "arch_fallback": True})
    assert fallback.status_code == 200 and fallback.headers["x-kiln-fallback"] == "arch"
    assert fallback.json()["measured_on"]["gpu"] == "NVIDIA H200"
