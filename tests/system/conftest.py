"""A real `kiln serve` process and real `kiln worker` processes (with the simulated GPU step)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from tests.conftest import REPO

SIM_STEP = "tests.doubles.simulated_gpu:SimulatedGpuStep"
ADMIN = "kiln_test_admin_token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class LiveService:
    url: str
    env: dict[str, str]
    data_dir: Path
    proc: subprocess.Popen
    workers: list[subprocess.Popen] = field(default_factory=list)

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {ADMIN}"}, timeout=60)

    def start_worker(self, name: str, extra_env: dict[str, str] | None = None) -> subprocess.Popen:
        proc = subprocess.Popen(
            [sys.executable, "-m", "service.cli.main", "worker", "--step", SIM_STEP, "--name", name, "--idle-sleep", "0.1"],
            cwd=REPO, env={**self.env, **(extra_env or {})}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.workers.append(proc)
        return proc

    def stop(self) -> None:
        for p in self.workers + [self.proc]:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.workers + [self.proc]:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


def start_service(database_url: str, tmp_path: Path, serve_args: list[str] | None = None, **settings: str) -> LiveService:
    port = free_port()
    env = {
        **os.environ, "KILN_DATABASE_URL": database_url, "KILN_DATA_DIR": str(tmp_path / "data"), "KILN_TOKEN": ADMIN,
        "KILN_SERVER_URL": f"http://127.0.0.1:{port}", "KILN_LOCAL_WORKER": "never", "KILN_CLIENT_CACHE": str(tmp_path / "client-cache"), "KILN_SIM_LOG": str(tmp_path / "executions.log"),
        "PYTHONPATH": str(REPO), **{f"KILN_{k.upper()}": v for k, v in settings.items()},
    }
    with open(tmp_path / "serve.log", "w") as log:  # the child keeps its own copy of the descriptor
        proc = subprocess.Popen([sys.executable, "-m", "service.cli.main", "serve", "--port", str(port), *(serve_args or [])],
                                cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                return LiveService(url, env, tmp_path / "data", proc)
        except httpx.TransportError:
            pass
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError("kiln serve did not become ready: " + (tmp_path / "serve.log").read_text()[-2000:])


@pytest.fixture(params=["sqlite", "postgresql"])
def system_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'kiln.db'}"
    from service.db.engine import open_database
    from tests.conftest import _truncate

    url = request.getfixturevalue("postgres_url")
    db = open_database(url)
    _truncate(db)
    db.dispose()
    return url


@pytest.fixture
def live(system_db_url: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[LiveService]:
    marker = request.node.get_closest_marker("service_settings")
    service = start_service(system_db_url, tmp_path, **(marker.kwargs if marker else {}))
    yield service
    service.stop()


def submit_gemms(client: httpx.Client, count: int) -> list[str]:
    """`count` distinct problems, in batches the API accepts; returns their job ids."""
    ids: list[str] = []
    for start in range(0, count, 250):
        problems = [{"op": "gemm", "m": 16 + i, "n": 4096, "k": 4096} for i in range(start, min(count, start + 250))]
        resp = client.post("/tune", json={"problems": problems})
        assert resp.status_code == 202, resp.text
        ids += [item["job_id"] for item in resp.json()["items"]]
    assert len(set(ids)) == count
    return ids


def wait_all_final(client: httpx.Client, job_ids: list[str], timeout: float) -> dict[str, dict]:
    deadline = time.monotonic() + timeout
    while True:
        jobs = {}
        for offset in range(0, len(job_ids) + 500, 500):
            for j in client.get("/jobs", params={"limit": 500, "offset": offset}).json():
                jobs[j["id"]] = j
        final = {j: jobs[j] for j in job_ids if jobs.get(j, {}).get("state") in ("succeeded", "failed", "cancelled")}
        if len(final) == len(job_ids) or time.monotonic() > deadline:
            return final
        time.sleep(0.5)
