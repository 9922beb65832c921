"""Synchronous client (what the CLI and CI jobs use)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx

from service.client.cache import KernelCache
from service.client.common import (
    FINAL,
    IntegrityError,
    KilnHTTPError,
    TuneTimeout,
    cached_cubin,
    checked,
    default_token,
    headers,
    local_key,
    lookup_body,
    lookup_result,
    tune_body,
    verified,
)
from service.settings import Settings

__all__ = ["IntegrityError", "KilnClient", "KilnHTTPError", "TuneTimeout", "default_token"]


class KilnClient:
    def __init__(self, base_url: str, token: str | None, timeout: float = 30.0, cache: KernelCache | None = None,
                 default_arch: str = "sm_90a") -> None:
        self.http = httpx.Client(base_url=base_url, headers=headers(token), timeout=timeout)
        self.cache = cache or KernelCache()
        self.default_arch = default_arch

    @classmethod
    def from_settings(cls, settings: Settings, cache: KernelCache | None = None) -> KilnClient:
        return cls(settings.server_url, default_token(settings), cache=cache, default_arch=settings.default_arch)

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> KilnClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def tune(self, problems: list[dict[str, Any]], target: dict[str, Any] | None = None,
             idempotency_key: str | None = None) -> dict[str, Any]:
        h = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        return checked(self.http.post("/tune", json=tune_body(problems, target), headers=h))

    def job(self, job_id: str) -> dict[str, Any]:
        return checked(self.http.get(f"/jobs/{job_id}"))

    def jobs(self, state: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        params: dict[str, Any] = {"limit": limit, **({"state": state} if state else {})}
        return checked(self.http.get("/jobs", params=params))

    def workers(self) -> list[dict[str, Any]]:
        return checked(self.http.get("/workers"))

    def wait(self, job_ids: list[str], timeout: float = 3600.0, poll: float = 0.5) -> dict[str, dict[str, Any]]:
        """Block until every job is final; raises TuneTimeout (the jobs carry on) when time runs out."""
        deadline = time.monotonic() + timeout
        done: dict[str, dict[str, Any]] = {}
        while len(done) < len(job_ids):
            for j in job_ids:
                if j not in done and (job := self.job(j))["state"] in FINAL:
                    done[j] = job
            if len(done) < len(job_ids):
                if time.monotonic() > deadline:
                    raise TuneTimeout(f"{len(job_ids) - len(done)} job(s) still running after {timeout:.0f}s")
                time.sleep(poll)
        return done

    def tune_and_wait(self, problems: list[dict[str, Any]], target: dict[str, Any] | None = None,
                      timeout: float = 3600.0) -> list[dict[str, Any] | None]:
        """The result of every problem, in order (None where its job failed)."""
        items = self.tune(problems, target)["items"]
        jobs = self.wait([i["job_id"] for i in items if i["status"] != "cached"], timeout)
        return [i["result"] if i["status"] == "cached" else jobs[i["job_id"]].get("result") for i in items]

    def lookup(self, problem: dict[str, Any], target: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """The tuned kernel record, from the service or, when it cannot be reached, from the local cache."""
        try:
            resp = self.http.post("/lookup", json=lookup_body(problem, target))
        except httpx.TransportError:
            return self.cache.recall(local_key(problem, target, self.default_arch))
        return lookup_result(resp, self.cache)

    def meta(self, sha256: str) -> dict[str, Any]:
        cached = self.cache.get_meta(sha256)
        return cached if cached is not None else checked(self.http.get(f"/kernel/{sha256}/meta"))

    def fetch(self, sha256: str, dest: Path | None = None) -> bytes:
        """The cubin, from the local cache when present (verified), else downloaded, verified, cached."""
        data = cached_cubin(self.cache, sha256)
        if data is None:
            resp = self.http.get(f"/kernel/{sha256}")
            if resp.status_code != 200:
                checked(resp)
            data = verified(sha256, resp.content)
            meta = checked(self.http.get(f"/kernel/{sha256}/meta"))
            self.cache.put_cubin(sha256, data, meta)
        if dest is not None:
            dest.parent.mkdir(parents=True, exist_ok=True)
            tmp = dest.with_suffix(dest.suffix + ".part")
            tmp.write_bytes(data)
            tmp.replace(dest)
        return data
