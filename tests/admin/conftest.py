"""A live `kiln serve` with a seeded database, and headless Chromium (Debian's) driven by Playwright."""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from service.versions import toolchain
from tests.conftest import ARTIFACTS
from tests.system.conftest import LiveService, start_service

CHROMIUM = os.environ.get("KILN_CHROMIUM", "/usr/bin/chromium")
EPILOGUES = ["none", "bias", "bias_gelu", "silu", "bias_relu"]


def _register(c: httpx.Client, name: str) -> str:
    return c.post("/workers/register", json={
        "name": name, "hostname": "rack-1", "gpu_name": "NVIDIA H200", "compute_capability": [9, 0], "sm_count": 132,
        "driver": "580.159.04", "cuda_version": "13.0", "toolchain": toolchain().as_dict()}).json()["id"]


def seed(c: httpx.Client) -> dict[str, Any]:
    """11 tuned GEMMs and a tuned Conv2d with candidates, one running job with progress, one failed job."""
    problems = [{"op": "gemm", "m": 256 * (i + 1), "n": 4096, "k": 1024, "epilogue": EPILOGUES[i % len(EPILOGUES)]}
                for i in range(11)]
    problems.append({"op": "conv2d", "n": 32, "h": 56, "w": 56, "c": 64, "k": 64, "r": 3, "s": 3, "padding": 1,
                     "epilogue": "bias"})
    submitted = c.post("/tune", json={"problems": problems})
    submitted.raise_for_status()
    conv_key = submitted.json()["items"][11]["spec_key"]
    wid = _register(c, "gpu0")
    keys = []
    for i in range(12):
        leased = c.post(f"/workers/{wid}/lease").json()
        cubin = b"\x7fELF" + hashlib.sha256(str(i).encode()).digest() * 64
        sha = hashlib.sha256(cubin).hexdigest()
        c.put(f"/kernel/{sha}", content=cubin).raise_for_status()
        kernel_us = 20.0 + i
        baseline = kernel_us * (0.8 + 0.05 * i)
        cands = [{"name": f"cand_{j}", "config": {"tile": [128, 64 * (j + 1), 64]}, "status": "timed",
                  "time_us": kernel_us + 3 * j, "spread_us": 0.2, "tflops": 500 - 20 * j, "compile_seconds": 3.0 + j}
                 for j in range(5)]
        cands.append({"name": "bad_one", "config": {}, "status": "verify_failed", "reason": "relative error 3.1e-01 > 2e-03"})
        c.post(f"/jobs/{leased['job']['id']}/result", json={
            "lease_token": leased["lease_token"], "winner_sha256": sha, "kernel_time_us": kernel_us, "kernel_spread_us": 0.2,
            "tflops": 500.0, "baseline_library": "cublas+torch", "baseline_time_us": baseline, "tuning_seconds": 40.0 + i,
            "config": {"name": "cand_0"}, "launch": {"runtime": {}},
            "kernels": [{"sha256": sha, "name": "cand_0", "family": "sm90_tma", "arch": "sm_90a", "config": {},
                         "source_sha256": sha, "launch": {"entry": "kiln_gemm"}}],
            "candidates": cands, "measured": {"gpu": "NVIDIA H200", "driver": "580.159.04", "cuda": "13.0"}}).raise_for_status()
        keys.append(leased["job"]["spec_key"])
    running = c.post("/tune", json={"problems": [{"op": "gemm", "m": 8192, "n": 8192, "k": 8192}]}).json()["items"][0]
    w2 = _register(c, "gpu1")
    lease = c.post(f"/workers/{w2}/lease").json()
    c.post(f"/jobs/{running['job_id']}/progress", json={"lease_token": lease["lease_token"], "generated": 5904,
                                                      "compiled": 3, "phase": "compiling"}).raise_for_status()
    failed = c.post("/tune", json={"problems": [{"op": "gemm", "m": 77, "n": 77, "k": 77}]}).json()["items"][0]
    w3 = _register(c, "gpu2")
    fl = c.post(f"/workers/{w3}/lease").json()
    c.post(f"/jobs/{failed['job_id']}/fail", json={"lease_token": fl["lease_token"], "error": "NVRTC: error: boom",
                                                 "retryable": False}).raise_for_status()
    return {"keys": keys, "conv_key": conv_key, "running": running["job_id"], "running_token": lease["lease_token"], "failed": failed["job_id"]}


@pytest.fixture(scope="module")
def dashboard(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveService, dict[str, Any]]]:
    tmp = tmp_path_factory.mktemp("admin")
    service = start_service(f"sqlite:///{tmp / 'kiln.db'}", tmp, lease_seconds="600")
    with service.client() as c:
        seeded = seed(c)
    yield service, seeded
    service.stop()


@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: `apt-get install chromium` (scripts/ensure-services.sh does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"])
        yield b
        b.close()


@pytest.fixture
def signed_in(browser, dashboard):  # type: ignore[no-untyped-def]
    service, _ = dashboard
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{service.url}/admin/")
    assert page.url.endswith("/admin/login")
    page.fill("#token", "kiln_test_admin_token")
    page.click("#signin")
    page.wait_for_url(f"{service.url}/admin/")
    page.errors = errors  # type: ignore[attr-defined]
    yield page
    context.close()


def shot(page, name: str) -> None:  # type: ignore[no-untyped-def]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"admin_{name}.png"), full_page=True)
