"""Load on loopback: cached POST /lookup and GET /kernel/{hash} from many concurrent clients.

    python -m bench.load --db sqlite --seconds 30 --concurrency 64
    python -m bench.load --db postgresql://postgres@127.0.0.1/postgres --seconds 30

Starts a real `kiln serve`, seeds it with tuned results through the worker API (uploads real
bytes, posts results), then hammers it; reports requests/s, p50 and p99 per endpoint.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import shutil
import statistics
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from bench.common import provenance, write_result
from service.versions import toolchain

SEED = 64


def _seed(client: httpx.Client) -> tuple[list[dict[str, Any]], list[str]]:
    problems = [{"op": "gemm", "m": 64 * (i + 1), "n": 4096, "k": 4096, "epilogue": "bias_gelu"} for i in range(SEED)]
    client.post("/tune", json={"problems": problems}).raise_for_status()
    wid = client.post("/workers/register", json={
        "name": "seed", "hostname": "bench", "gpu_name": "Seeder", "compute_capability": [9, 0], "sm_count": 132,
        "driver": "0", "cuda_version": "13.0", "toolchain": toolchain().as_dict()}).json()["id"]
    hashes = []
    for i in range(SEED):
        leased = client.post(f"/workers/{wid}/lease").json()
        cubin = b"\x7fELF" + hashlib.sha256(str(i).encode()).digest() * 8192  # 256 KiB, a realistic cubin size
        sha = hashlib.sha256(cubin).hexdigest()
        client.put(f"/kernel/{sha}", content=cubin).raise_for_status()
        client.post(f"/jobs/{leased['job']['id']}/result", json={
            "lease_token": leased["lease_token"], "winner_sha256": sha, "kernel_time_us": 10.0, "baseline_time_us": 11.0,
            "kernels": [{"sha256": sha, "name": f"k{i}", "family": "seed", "arch": "sm_90a", "config": {},
                         "source_sha256": sha, "launch": {}}],
            "measured": {"gpu": "Seeder", "driver": "0", "cuda": "13.0"}}).raise_for_status()
        hashes.append(sha)
    return problems, hashes


def _wrk(url: str, token: str, problems: list[dict[str, Any]], hashes: list[str], seconds: float,
         concurrency: int, tmp: Path) -> dict[str, Any]:
    """wrk (C, event loop) as the load generator: a Python client would saturate the cores first.

    Half the connections POST /lookup over the seeded problems, half GET /kernel/{hash}; two wrk
    processes run side by side so each endpoint's latency is reported on its own.
    """
    lookup_lua = tmp / "lookup.lua"
    bodies = ",".join("[[" + json.dumps({"problem": p}) + "]]" for p in problems)
    lookup_lua.write_text(
        f'local bodies = {{{bodies}}}\nlocal i = 0\n'
        'request = function()\n  i = i + 1\n'
        f'  return wrk.format("POST", "/lookup", {{["Content-Type"]="application/json", ["Authorization"]="Bearer {token}"}}, bodies[(i % #bodies) + 1])\nend\n'
        + _REPORT)
    kernel_lua = tmp / "kernel.lua"
    paths = ",".join(f'"/kernel/{h}"' for h in hashes)
    kernel_lua.write_text(
        f'local paths = {{{paths}}}\nlocal i = 0\n'
        'request = function()\n  i = i + 1\n'
        f'  return wrk.format("GET", paths[(i % #paths) + 1], {{["Authorization"]="Bearer {token}"}})\nend\n'
        + _REPORT)
    half = max(1, concurrency // 2)
    procs = {name: subprocess.Popen(["wrk", "-t1", f"-c{half}", f"-d{int(seconds)}s", "--timeout", "10s", "-s", str(lua), url],
                                    stdout=subprocess.PIPE, text=True)
             for name, lua in (("lookup", lookup_lua), ("kernel", kernel_lua))}
    out: dict[str, Any] = {"seconds": seconds, "concurrency": 2 * half, "generator": "wrk", "errors": 0}
    for name, proc in procs.items():
        stdout, _ = proc.communicate()
        line = next(ln for ln in stdout.splitlines() if ln.startswith("KILN "))
        _, requests, rps, p50, p99, errors = line.split()
        out[name] = {"requests": int(requests), "rps": round(float(rps), 1), "p50_ms": round(float(p50) / 1000, 2),
                     "p99_ms": round(float(p99) / 1000, 2)}
        out["errors"] += int(errors)
    out["total_rps"] = round(out["lookup"]["rps"] + out["kernel"]["rps"], 1)
    return out


_REPORT = """
done = function(summary, latency, requests)
  local errors = summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format("KILN %d %.1f %d %d %d\\n", summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(99), errors))
end
"""


async def _hammer(url: str, token: str, problems: list[dict[str, Any]], hashes: list[str], seconds: float,
                  concurrency: int) -> dict[str, Any]:
    lat: dict[str, list[float]] = {"lookup": [], "kernel": []}
    errors = 0
    deadline = time.perf_counter() + seconds
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {token}"}, limits=limits,
                                 timeout=30) as client:

        async def one(worker: int) -> None:
            nonlocal errors
            i = worker
            while time.perf_counter() < deadline:
                kind = "lookup" if i % 2 == 0 else "kernel"
                t0 = time.perf_counter()
                if kind == "lookup":
                    r = await client.post("/lookup", json={"problem": problems[i % len(problems)]})
                else:
                    r = await client.get(f"/kernel/{hashes[i % len(hashes)]}")
                dt = time.perf_counter() - t0
                if r.status_code != 200:
                    errors += 1
                else:
                    lat[kind].append(dt)
                i += 1

        t0 = time.perf_counter()
        await asyncio.gather(*(one(w) for w in range(concurrency)))
        wall = time.perf_counter() - t0

    def summary(xs: list[float]) -> dict[str, float | None]:
        xs = sorted(xs)
        return {"requests": len(xs), "rps": round(len(xs) / wall, 1),
                "p50_ms": round(1000 * statistics.median(xs), 2) if xs else None,
                "p99_ms": round(1000 * xs[int(0.99 * (len(xs) - 1))], 2) if xs else None}

    total = len(lat["lookup"]) + len(lat["kernel"])
    return {"seconds": round(wall, 1), "concurrency": concurrency, "errors": errors, "total_rps": round(total / wall, 1),
            "lookup": summary(lat["lookup"]), "kernel": summary(lat["kernel"])}


def _database(spec: str, tmp: Path) -> tuple[str, str, Any]:
    if spec == "sqlite":
        return "sqlite", f"sqlite:///{tmp / 'kiln.db'}", None
    url = make_url(spec if "+" in spec.split(":")[0] else spec.replace("postgresql://", "postgresql+psycopg://", 1))
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    name = f"kiln_load_{uuid.uuid4().hex[:8]}"
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))

    def drop() -> None:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return "postgresql", url.set(database=name).render_as_string(hide_password=False), drop


def run(db: str, seconds: float, concurrency: int, api_workers: int = 1) -> dict[str, Any]:
    from tests.system.conftest import ADMIN, start_service

    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        backend, url, cleanup = _database(db, tmp)
        service = start_service(url, tmp, serve_args=["--workers", str(api_workers)])
        try:
            with service.client() as client:
                problems, hashes = _seed(client)
            if shutil.which("wrk"):
                stats = _wrk(service.url, ADMIN, problems, hashes, seconds, concurrency, tmp)
            else:
                stats = asyncio.run(_hammer(service.url, ADMIN, problems, hashes, seconds, concurrency))
                stats["generator"] = "httpx (install wrk for numbers not bound by the client)"
        finally:
            service.stop()
            if cleanup:
                cleanup()
    return {"database": backend, "api_processes": api_workers, **stats}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--db", action="append", default=None, help="'sqlite' or a PostgreSQL URL (repeatable)")
    p.add_argument("--seconds", type=float, default=30)
    p.add_argument("--concurrency", type=int, default=64)
    p.add_argument("--api-workers", type=int, action="append", default=None, help="uvicorn processes (repeatable)")
    p.add_argument("--out", default=None, help="file name under bench/results/")
    args = p.parse_args()
    runs = [run(db, args.seconds, args.concurrency, n) for db in (args.db or ["sqlite"]) for n in (args.api_workers or [1])]
    payload = {**provenance(), "benchmark": "load", "runs": runs,
               "note": "client and server share this machine's cores; one uvicorn process"}
    for r in runs:
        print(f"{r['database']:>10} x{r['api_processes']}: {r['total_rps']:8.1f} req/s total | lookup p50 {r['lookup']['p50_ms']} ms "
              f"p99 {r['lookup']['p99_ms']} ms | kernel p50 {r['kernel']['p50_ms']} ms p99 {r['kernel']['p99_ms']} ms "
              f"| errors {r['errors']}")
    if args.out:
        print("wrote", write_result(args.out, payload))


if __name__ == "__main__":
    main()
