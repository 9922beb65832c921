"""A worker's side of the protocol, driven through the HTTP API in tests."""

from __future__ import annotations

import hashlib
from typing import Any

from fastapi.testclient import TestClient

from service.versions import toolchain

GEMM = {"op": "gemm", "m": 4096, "n": 768, "k": 3072, "dtype": "f16", "epilogue": "bias"}
CONV = {"op": "conv2d", "n": 32, "h": 56, "w": 56, "c": 64, "k": 64, "r": 3, "s": 3, "stride": 1, "padding": 1,
        "layout": "NHWC", "dtype": "f16", "epilogue": "bias_relu"}


def register(wc: TestClient, name: str = "w0", cc: tuple[int, int] = (9, 0), gpu: str = "NVIDIA H200") -> str:
    body = {"name": name, "hostname": "test-host", "gpu_name": gpu, "gpu_index": 0, "compute_capability": list(cc),
            "sm_count": 132, "driver": "580.0", "cuda_version": "13.0", "toolchain": toolchain().as_dict()}
    resp = wc.post("/workers/register", json=body)
    assert resp.status_code == 200, resp.text
    return resp.json()["id"]


def lease(wc: TestClient, worker_id: str) -> dict[str, Any] | None:
    resp = wc.post(f"/workers/{worker_id}/lease")
    assert resp.status_code in (200, 204), resp.text
    return None if resp.status_code == 204 else resp.json()


def cubin(tag: str) -> tuple[str, bytes]:
    data = b"\x7fELF" + tag.encode() * 100
    return hashlib.sha256(data).hexdigest(), data


def result_body(token: str, tag: str, sha: str, kernel_us: float = 10.0, baseline_us: float = 12.0) -> dict[str, Any]:
    return {
        "lease_token": token,
        "kernels": [{"sha256": sha, "name": f"k_{tag}", "family": "sm90_tma", "arch": "sm_90a", "config": {"tile": [128, 128, 64]},
                     "source_sha256": "0" * 64, "compile_seconds": 1.0, "compile_log": "", "launch": {"entry": "gemm_kernel"}}],
        "winner_sha256": sha, "config": {"tile": [128, 128, 64]}, "launch": {"grid": [1, 1, 1]},
        "kernel_time_us": kernel_us, "kernel_spread_us": 0.1, "tflops": 100.0, "baseline_library": "cublas",
        "baseline_time_us": baseline_us, "tuning_seconds": 3.0,
        "candidates": [{"name": f"k_{tag}", "config": {"tile": [128, 128, 64]}, "status": "timed", "time_us": kernel_us},
                       {"name": "bad", "config": {}, "status": "verify_failed", "reason": "max rel err 0.5"}],
        "measured": {"gpu": "NVIDIA H200", "driver": "580.0", "cuda": "13.0"},
    }


def finish(wc: TestClient, leased: dict[str, Any], tag: str = "a", **kw: Any) -> dict[str, Any]:
    sha, data = cubin(tag)
    assert wc.put(f"/kernel/{sha}", content=data).status_code in (200, 201)
    resp = wc.post(f"/jobs/{leased['job']['id']}/result", json=result_body(leased["lease_token"], tag, sha, **kw))
    assert resp.status_code == 200, resp.text
    return resp.json()
