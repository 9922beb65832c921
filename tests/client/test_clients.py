"""The Python clients against a live service: tune and wait, fetch with verification, an on-disk
cache that survives corruption and answers offline, the async client, timeouts."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from service.client import AsyncKilnClient, KernelCache, KilnClient, TuneTimeout
from tests.system.conftest import ADMIN, LiveService, start_service

pytestmark = pytest.mark.slow

GEMM = {"op": "gemm", "m": 4096, "n": 768, "k": 3072, "epilogue": "bias"}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    tmp = tmp_path_factory.mktemp("clients")
    service = start_service(f"sqlite:///{tmp / 'kiln.db'}", tmp, lease_seconds="30")
    service.start_worker("w0")
    yield service
    service.stop()


def test_tune_wait_fetch_and_offline_cache(live: LiveService, tmp_path: Path) -> None:
    cache = KernelCache(tmp_path / "cache")
    with KilnClient(live.url, ADMIN, cache=cache) as client:
        [result] = client.tune_and_wait([GEMM], timeout=60)
        assert result is not None and result["recommendation"] in ("kiln", "library")
        sha = result["kernel"]["sha256"]
        data = client.fetch(sha, tmp_path / "k.cubin")
        assert (tmp_path / "k.cubin").read_bytes() == data and cache.get_cubin(sha) == data
        assert client.lookup(GEMM)["kernel"]["sha256"] == sha
        assert client.meta(sha)["sha256"] == sha
    # The service is gone (wrong port): a filled cache still answers lookups and fetches.
    with KilnClient("http://127.0.0.1:9", ADMIN, cache=cache) as offline:
        assert offline.lookup(GEMM)["kernel"]["sha256"] == sha
        assert offline.fetch(sha) == data
        assert offline.lookup({**GEMM, "m": 5}) is None


def test_corrupted_cached_kernel_is_detected_and_fetched_again(live: LiveService, tmp_path: Path) -> None:
    cache = KernelCache(tmp_path / "cache")
    with KilnClient(live.url, ADMIN, cache=cache) as client:
        [result] = client.tune_and_wait([{**GEMM, "epilogue": "bias_gelu"}], timeout=60)
        sha = result["kernel"]["sha256"]
        good = client.fetch(sha)
        path = next((tmp_path / "cache" / "kernels").rglob(f"{sha}.cubin"))
        path.write_bytes(good[:-1] + b"X")
        assert client.fetch(sha) == good  # detected, dropped, downloaded again
        assert path.read_bytes() == good


def test_wait_times_out_and_the_job_carries_on(tmp_path: Path) -> None:
    service = start_service(f"sqlite:///{tmp_path / 'kiln.db'}", tmp_path)  # no worker
    try:
        with KilnClient(service.url, ADMIN, cache=KernelCache(tmp_path / "c")) as client:
            job_id = client.tune([GEMM])["items"][0]["job_id"]
            with pytest.raises(TuneTimeout):
                client.wait([job_id], timeout=1, poll=0.2)
            assert client.job(job_id)["state"] == "queued"
    finally:
        service.stop()


def test_async_client(live: LiveService, tmp_path: Path) -> None:
    async def run() -> None:
        async with AsyncKilnClient(live.url, ADMIN, cache=KernelCache(tmp_path / "cache")) as client:
            items = (await client.tune([{**GEMM, "m": 2048}, {**GEMM, "m": 1024}]))["items"]
            jobs = await client.wait([i["job_id"] for i in items], timeout=60)
            assert {j["state"] for j in jobs.values()} == {"succeeded"}
            result = await client.lookup({**GEMM, "m": 2048})
            data = await client.fetch(result["kernel"]["sha256"])
            assert data[:4] == b"\x7fELF"

    asyncio.run(run())
