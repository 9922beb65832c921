"""The worker's HTTP client: every call retried through transient network and server errors."""

from __future__ import annotations

import contextlib
import logging
import random
import time
from typing import Any

import httpx

from service.client.common import error_detail
from service.versions import toolchain
from worker.device import DeviceInfo

log = logging.getLogger("kiln.worker.client")


class LeaseLostError(Exception):
    """The service refused a write because this worker no longer holds the job's lease."""


class ServiceRefused(httpx.HTTPStatusError):
    """A 4xx, or a 5xx past the retry budget, with the service's own reason in the message: a
    worker that stops on it says why (a GPU no Kiln target loads on, a revoked token) rather than
    only the status line."""


class ServiceClient:
    def __init__(self, base_url: str, token: str | None, *, timeout: float = 60.0, retry_for: float = 600.0) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.Client(base_url=base_url, headers=headers, timeout=timeout)
        self.retry_for = retry_for

    def close(self) -> None:
        self.http.close()

    def _call(self, method: str, url: str, **kw: Any) -> httpx.Response:
        """Retry connection errors and 5xx with jittered backoff; return 2xx/4xx to the caller."""
        deadline = time.monotonic() + self.retry_for
        delay = 0.2
        while True:
            try:
                resp = self.http.request(method, url, **kw)
                if resp.status_code < 500 or time.monotonic() > deadline:
                    return resp
                log.warning("%s %s: HTTP %d, retrying", method, url, resp.status_code)
            except httpx.TransportError as exc:
                if time.monotonic() > deadline:
                    raise
                log.warning("%s %s: %s, retrying", method, url, exc)
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 5.0)

    def _ok(self, resp: httpx.Response) -> httpx.Response:
        if resp.status_code == 409:
            raise LeaseLostError(resp.json().get("detail", "lease lost"))
        if resp.is_error:
            raise ServiceRefused(f"{resp.request.method} {resp.request.url.path}: HTTP {resp.status_code}: "
                                 f"{error_detail(resp)}", request=resp.request, response=resp)
        return resp

    def register(self, name: str, hostname: str, dev: DeviceInfo) -> dict[str, Any]:
        body = {"name": name, "hostname": hostname, **dev.as_dict(), "toolchain": toolchain().as_dict()}
        return self._ok(self._call("POST", "/workers/register", json=body)).json()

    def lease(self, worker_id: str) -> dict[str, Any] | None:
        resp = self._ok(self._call("POST", f"/workers/{worker_id}/lease"))
        return None if resp.status_code == 204 else resp.json()

    def heartbeat(self, worker_id: str, leases: list[tuple[str, str]]) -> dict[str, bool]:
        body = {"leases": [{"job_id": j, "lease_token": t} for j, t in leases]}
        return self._ok(self._call("POST", f"/workers/{worker_id}/heartbeat", json=body)).json()["alive"]

    def progress(self, job_id: str, token: str, **counters: Any) -> None:
        self._ok(self._call("POST", f"/jobs/{job_id}/progress", json={"lease_token": token, **counters}))

    def upload_kernel(self, sha256: str, cubin: bytes) -> None:
        self._ok(self._call("PUT", f"/kernel/{sha256}", content=cubin,
                            headers={"Content-Type": "application/octet-stream"}))

    def post_result(self, job_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return self._ok(self._call("POST", f"/jobs/{job_id}/result", json=body)).json()

    def fail(self, job_id: str, token: str, error: str, *, retryable: bool) -> dict[str, Any]:
        body = {"lease_token": token, "error": error, "retryable": retryable}
        return self._ok(self._call("POST", f"/jobs/{job_id}/fail", json=body)).json()

    def stop(self, worker_id: str) -> None:
        with contextlib.suppress(httpx.HTTPError):
            self.http.post(f"/workers/{worker_id}/stop", timeout=5)
