"""Asynchronous client, for ML compilers that submit from an event loop. Same calls as KilnClient."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx

from service.client.cache import KernelCache
from service.client.common import (
    FINAL,
    TuneTimeout,
    cached_cubin,
    checked,
    headers,
    local_key,
    lookup_body,
    lookup_result,
    tune_body,
    verified,
)


class AsyncKilnClient:
    def __init__(self, base_url: str, token: str | None, timeout: float = 30.0, cache: KernelCache | None = None,
                 default_arch: str = "sm_90a") -> None:
        self.http = httpx.AsyncClient(base_url=base_url, headers=headers(token), timeout=timeout)
        self.cache = cache or KernelCache()
        self.default_arch = default_arch

    async def aclose(self) -> None:
        await self.http.aclose()

    async def __aenter__(self) -> AsyncKilnClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def tune(self, problems: list[dict[str, Any]], target: dict[str, Any] | None = None) -> dict[str, Any]:
        return checked(await self.http.post("/tune", json=tune_body(problems, target)))

    async def job(self, job_id: str) -> dict[str, Any]:
        return checked(await self.http.get(f"/jobs/{job_id}"))

    async def wait(self, job_ids: list[str], timeout: float = 3600.0, poll: float = 0.5) -> dict[str, dict[str, Any]]:
        deadline = time.monotonic() + timeout
        done: dict[str, dict[str, Any]] = {}
        while len(done) < len(job_ids):
            pending = [j for j in job_ids if j not in done]
            for job in await asyncio.gather(*(self.job(j) for j in pending)):
                if job["state"] in FINAL:
                    done[job["id"]] = job
            if len(done) < len(job_ids):
                if time.monotonic() > deadline:
                    raise TuneTimeout(f"{len(job_ids) - len(done)} job(s) still running after {timeout:.0f}s")
                await asyncio.sleep(poll)
        return done

    async def lookup(self, problem: dict[str, Any], target: dict[str, Any] | None = None) -> dict[str, Any] | None:
        try:
            resp = await self.http.post("/lookup", json=lookup_body(problem, target))
        except httpx.TransportError:
            return self.cache.recall(local_key(problem, target, self.default_arch))
        return lookup_result(resp, self.cache)

    async def fetch(self, sha256: str) -> bytes:
        data = cached_cubin(self.cache, sha256)
        if data is None:
            resp = await self.http.get(f"/kernel/{sha256}")
            if resp.status_code != 200:
                checked(resp)
            data = verified(sha256, resp.content)
            self.cache.put_cubin(sha256, data, checked(await self.http.get(f"/kernel/{sha256}/meta")))
        return data
