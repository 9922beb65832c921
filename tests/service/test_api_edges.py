"""What schemathesis found at 52e7024 (`tests/service/test_openapi_conformance.py` now guards the
whole surface), pinned as plain cases on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from fastapi.testclient import TestClient

from tests.service.helpers import GEMM, finish, lease, register


def test_a_page_offset_past_any_table_is_a_422_not_an_overflow(client: TestClient) -> None:
    for path in ("/results", "/jobs"):
        r = client.get(path, params={"offset": 2862724887382435299328})
        assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["query", "offset"], r.text


def test_nul_characters_are_refused_by_field_not_by_the_database(worker_client: TestClient) -> None:
    body = {"name": "w\x00", "hostname": "h", "gpu_name": "NVIDIA H200", "compute_capability": [9, 0],
            "sm_count": 132, "driver": "580", "cuda_version": "13.0",
            "toolchain": {"generator": "1", "cutlass": "4.2", "nvrtc": "13.0"}}
    r = worker_client.post("/workers/register", json=body)
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "name"], r.text
    r = worker_client.post("/workers/%00/stop")  # no validator sees a path value: PostgreSQL refuses it, SQLite finds nothing
    assert r.status_code in (404, 422), r.text


def test_timestamps_are_utc_instants_and_since_honours_its_offset(client: TestClient, worker_client: TestClient) -> None:
    client.post("/tune", json={"problems": [GEMM]})
    finish(worker_client, lease(worker_client, register(worker_client)), tag="t")
    item = client.get("/results").json()["items"][0]
    created = datetime.fromisoformat(item["created_at"])
    assert item["created_at"].endswith("Z") and created.utcoffset() == timedelta(0)
    job = client.get("/jobs").json()[0]
    assert all(job[k].endswith("Z") for k in ("created_at", "started_at", "finished_at"))
    # One minute before the result, written in UTC+02:00: the result is after it. Truncating the
    # offset instead of converting would put the bound two hours later and filter the result out.
    east = (created - timedelta(minutes=1)).astimezone(timezone(timedelta(hours=2)))
    assert client.get("/results", params={"since": east.isoformat()}).json()["total"] == 1
    later = (created + timedelta(minutes=1)).astimezone(east.tzinfo)
    assert client.get("/results", params={"since": later.isoformat()}).json()["total"] == 0


def test_a_gpu_no_target_loads_on_cannot_register(worker_client: TestClient) -> None:
    body = {"name": "t4", "hostname": "h", "gpu_name": "Tesla T4", "compute_capability": [7, 5], "sm_count": 40,
            "driver": "580", "cuda_version": "13.0", "toolchain": {"generator": "1", "cutlass": "4.2", "nvrtc": "13.0"}}
    r = worker_client.post("/workers/register", json=body)
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "compute_capability"], r.text
    assert "7.5" in r.json()["detail"][0]["msg"] and "sm_90a" in r.json()["detail"][0]["msg"]


def test_a_worker_told_no_says_why(worker_client: TestClient) -> None:
    from worker.client import ServiceClient, ServiceRefused
    from worker.device import DeviceInfo

    client = ServiceClient("http://testserver", None, retry_for=0)
    client.http = worker_client  # the real app and database, through the worker's own client code
    turing = DeviceInfo(gpu_name="Tesla T4", gpu_index=0, compute_capability=(7, 5), sm_count=40, driver="580.0",
                        cuda_version="13.0")
    with pytest.raises(ServiceRefused, match=r"HTTP 422: .*compute capability 7\.5"):
        client.register("t4", "host", turing)
    with pytest.raises(ServiceRefused, match=r"HTTP 404: No worker with this id"):
        client.lease("0" * 32)
