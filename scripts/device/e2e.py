"""End to end on the GPU host: `kiln serve` (embedded SQLite, local worker on the GPU), a client
POSTs a GEMM with bias_gelu, the worker tunes it, the client fetches the cubin and its meta and
launches it on its own tensors, checking the result. Writes a transcript to $OUT/e2e_transcript.json."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import torch

from worker.runtime.launcher import LoadedKernel

OUT = Path(os.environ.get("OUT", "/tmp"))
PORT = 8799
URL = f"http://127.0.0.1:{PORT}"
SPEC = {"op": "gemm", "m": 4096, "n": 3072, "k": 768, "dtype": "f16", "epilogue": "bias_gelu"}


def main() -> None:
    data = Path("/tmp/kiln-e2e")
    env = {**os.environ, "KILN_DATA_DIR": str(data), "KILN_PORT": str(PORT), "KILN_TUNE_LIMIT": "4"}
    with open(OUT / "e2e_serve.log", "w") as log:  # the child keeps its own descriptor
        serve = subprocess.Popen([sys.executable, "-m", "service.cli.main", "serve"], env=env, stdout=log,
                                 stderr=subprocess.STDOUT)
    transcript: list[dict] = []

    def note(**kw: object) -> None:
        kw["t"] = round(time.time(), 2)
        transcript.append(kw)
        print(json.dumps(kw, default=str)[:400], flush=True)

    try:
        for _ in range(120):
            try:
                if httpx.get(f"{URL}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.5)
        token = (data / "admin.token").read_text().strip()
        c = httpx.Client(base_url=URL, headers={"Authorization": f"Bearer {token}"}, timeout=60)
        r = c.post("/tune", json={"problems": [SPEC], "target": {"arch": "sm_90a"}})
        note(step="POST /tune", status=r.status_code, body=r.json())
        job_id = r.json()["items"][0]["job_id"]
        while True:
            job = c.get(f"/jobs/{job_id}").json()
            note(step="GET /jobs", state=job["state"], progress=job["progress"], error=job["error"])
            if job["state"] in ("succeeded", "failed", "cancelled"):
                break
            time.sleep(3)
        assert job["state"] == "succeeded", job["error"]
        result = job["result"]
        note(step="result", kernel=result["kernel"], speedup=result["speedup"], baseline=result["baseline"],
             recommendation=result["recommendation"], kernel_time_us=result["kernel_time_us"])
        sha = result["kernel"]["sha256"]
        cubin = c.get(f"/kernel/{sha}")
        assert hashlib.sha256(cubin.content).hexdigest() == sha
        meta = c.get(f"/kernel/{sha}/meta").json()
        note(step="GET /kernel + meta", bytes=len(cubin.content), etag=cubin.headers.get("etag"), meta_launch=meta["launch"])
        # The client side: launch the cubin from its meta on our own tensors.
        m, n, k = SPEC["m"], SPEC["n"], SPEC["k"]
        A = torch.randn(m, k, device="cuda", dtype=torch.half)
        W = torch.randn(n, k, device="cuda", dtype=torch.half)
        bias = torch.randn(n, device="cuda", dtype=torch.half)
        D = torch.full((m, n), float("nan"), device="cuda", dtype=torch.half)
        kern = LoadedKernel(cubin.content, {**meta["launch"], "runtime": result["launch"]["runtime"]})
        scratch = torch.zeros(65536, dtype=torch.uint8, device="cuda")
        stream = torch.cuda.current_stream().cuda_stream
        prep = kern.prepare(m=m, n=n, k=k, alpha=1.0, beta=0.0, sm_count=torch.cuda.get_device_properties(0).multi_processor_count,
                            stream=stream, scratch=scratch.data_ptr(), runtime=result["launch"]["runtime"])
        packed = prep.pack({"A": A.data_ptr(), "B": W.data_ptr(), "C": 0, "D": D.data_ptr(), "bias": bias.data_ptr()})
        kern.launch_packed(prep, packed, stream)
        torch.cuda.synchronize()
        ref = torch.nn.functional.gelu(A.float() @ W.float().t() + bias.float(), approximate="tanh")
        err = float((D.float() - ref).norm() / ref.norm())
        t0 = time.perf_counter()
        for _ in range(1000):
            prep.pack({"A": A.data_ptr(), "B": W.data_ptr(), "C": 0, "D": D.data_ptr(), "bias": bias.data_ptr()})
        pack_us = (time.perf_counter() - t0) * 1000
        note(step="client launch", rel_error=err, finite=bool(torch.isfinite(D).all()), host_pack_us=round(pack_us, 1))
        assert err < 2e-3
        hit = c.post("/tune", json={"problems": [SPEC], "target": {"arch": "sm_90a"}})
        note(step="POST /tune again", status=hit.status_code, status_item=hit.json()["items"][0]["status"])
    finally:
        serve.terminate()
        serve.wait(timeout=30)
        (OUT / "e2e_transcript.json").write_text(json.dumps(transcript, indent=1, default=str))


if __name__ == "__main__":
    main()
