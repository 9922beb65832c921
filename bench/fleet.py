"""`python -m bench.fleet`: the suite's GEMMs tuned through a real service by N GPU workers.

    python -m bench.fleet --suite ../shared/bench/suite.json --db postgresql+psycopg://postgres@127.0.0.1/postgres \\
        --gpus 0 --gpus 0,1 --data-dir /tmp/kiln-fleet --out bench/results/fleet_h200x2_<date>.json

For each `--gpus` set, in order: a fresh database schema, `kiln serve` (no local worker),
`kiln worker --gpus SET` (one process per GPU, one compile cache on the host), every suite GEMM
POSTed in one batch once every worker has registered, then wait until every job has finished.
Reports the wall time from the POST to the last result (polled every 0.5 s), which worker/GPU
tuned each shape, the winner and its ratio to the library, and the duplicate check straight from
the database (results per spec key, executions per job).
Runs share the compile cache on purpose: run the same set twice to compare warm against warm.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, text

from bench.common import provenance

PORT = 8790


def _fresh_database(admin_url: str, name: str) -> str:
    """One database per run, so counts and timings cannot mix runs."""
    engine = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return admin_url.rsplit("/", 1)[0] + "/" + name


def _wait_ready(url: str, seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    raise RuntimeError("kiln serve did not become ready")


def _wait_workers(client: httpx.Client, count: int, seconds: float = 120) -> None:
    """The clock starts once every worker has registered: the figure is the fleet's tuning
    throughput, not how long N processes take to import torch (a fleet's workers are up already)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if sum(w["online"] for w in client.get("/workers").json()) >= count:
            return
        time.sleep(0.2)
    raise RuntimeError(f"{count} workers did not register")


def _problems(suite: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"op": "gemm", "m": g["m"], "n": g["n"], "k": g["k"], "dtype": g.get("dtype", "f16"),
             "epilogue": g.get("epilogue", "none")} for g in suite]


def prefill(suite: list[dict[str, Any]], data_dir: Path, limit: int) -> dict[str, Any]:
    """Compile every variant the suite's tuning jobs will ask for (the workers' own selection, into
    their own compile cache), untimed, so the runs compare GPU work with a warm compile cache (what
    a fleet sees after its first day). `kiln compile --file` on a CPU host does the same."""
    from service.specs import GemmSpec
    from worker.kernels.compiler import Compiler
    from worker.kernels.hardware import hardware_for
    from worker.selection import select_gemm

    hw = hardware_for("sm_90a", 132)
    wanted: dict[Any, Any] = {}
    for spec in _problems(suite):
        for cfg in select_gemm(GemmSpec.model_validate(spec), "sm_90a", hw, limit).report.kept:
            wanted.setdefault(cfg.compiled, cfg)
    t0 = time.monotonic()
    outs = Compiler(data_dir / "compile-cache", jobs=os.cpu_count()).compile_all(list(wanted.values()),
                                                                                target_arch="sm_90a")
    return {"variants": len(wanted), "failed": sum(not o.ok for o in outs), "seconds": round(time.monotonic() - t0, 1)}


def run_fleet(suite: list[dict[str, Any]], db_admin_url: str, gpus: str, data_dir: Path, limit: int,
              logs: Path) -> dict[str, Any]:
    label = "gpus_" + gpus.replace(",", "_")
    db_url = _fresh_database(db_admin_url, f"kiln_fleet_{label}_{int(time.time())}")
    data = Path(f"/tmp/kiln-fleet-{label}")
    data.mkdir(parents=True, exist_ok=True)
    base = {**os.environ, "KILN_DATABASE_URL": db_url, "PYTHONUNBUFFERED": "1"}
    serve_env = {**base, "KILN_DATA_DIR": str(data), "KILN_PORT": str(PORT), "KILN_LOCAL_WORKER": "never"}
    url = f"http://127.0.0.1:{PORT}"
    procs: list[subprocess.Popen] = []
    try:
        with open(logs / f"fleet_{label}_serve.log", "w") as log:
            procs.append(subprocess.Popen([sys.executable, "-m", "service.cli.main", "serve"], env=serve_env,
                                          stdout=log, stderr=subprocess.STDOUT))
        _wait_ready(url)
        token = (data / "admin.token").read_text().strip()
        # The worker's data dir holds the compile cache: shared by every run and every GPU here.
        worker_env = {**base, "KILN_SERVER_URL": url, "KILN_TOKEN": token, "KILN_DATA_DIR": str(data_dir),
                      "KILN_TUNE_LIMIT": str(limit)}
        with open(logs / f"fleet_{label}_worker.log", "w") as log:
            procs.append(subprocess.Popen([sys.executable, "-m", "service.cli.main", "worker", "--gpus", gpus],
                                          env=worker_env, stdout=log, stderr=subprocess.STDOUT))
        client = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=60)
        _wait_workers(client, len(gpus.split(",")))
        t0 = time.monotonic()
        r = client.post("/tune", json={"problems": _problems(suite), "target": {"arch": "sm_90a"}})
        r.raise_for_status()
        job_ids = [item["job_id"] for item in r.json()["items"]]
        jobs: dict[str, dict[str, Any]] = {}
        while True:
            jobs = {j: client.get(f"/jobs/{j}").json() for j in job_ids}
            if all(j["state"] in ("succeeded", "failed", "cancelled") for j in jobs.values()):
                break
            done = sum(j["state"] == "succeeded" for j in jobs.values())
            print(json.dumps({"fleet": label, "t": round(time.monotonic() - t0, 1), "succeeded": done,
                              "of": len(job_ids)}), flush=True)
            time.sleep(0.5)
        wall = time.monotonic() - t0
        workers = {w["id"]: w for w in client.get("/workers").json()}
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in reversed(procs):
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
    engine = create_engine(db_url)
    with engine.connect() as conn:
        per_key = conn.execute(text("SELECT spec_key, count(*) FROM tuning_results GROUP BY spec_key")).all()
        attempts = conn.execute(text("SELECT id, attempts FROM jobs")).all()
        rows = conn.execute(text("SELECT r.job_id, c.name, c.status, c.time_us, c.spread_us, c.compile_seconds "
                                 "FROM candidates c JOIN tuning_results r ON r.id = c.result_id")).all()
    timings: dict[str, list[dict[str, Any]]] = {}
    for job_id, name, status, time_us, spread_us, compile_s in rows:
        timings.setdefault(job_id, []).append({"name": name, "status": status, "time_us": time_us,
                                               "spread_us": spread_us, "compile_seconds": compile_s})
    engine.dispose()
    shapes = []
    for entry, job_id in zip(suite, job_ids, strict=True):
        job = jobs[job_id]
        res = job.get("result") or {}
        worker = workers.get(job.get("worker_id") or "", {})
        shapes.append({
            "name": entry["name"], "state": job["state"], "error": job["error"],
            "worker": worker.get("name"), "gpu_index": worker.get("gpu_index"),
            "winner": (res.get("config") or {}), "kernel_us": res.get("kernel_time_us"),
            "library": (res.get("baseline") or {}).get("library"), "library_us": (res.get("baseline") or {}).get("time_us"),
            "ratio_library_over_kiln": res.get("speedup"), "tuning_seconds": res.get("tuning_seconds"),
            "candidates": sorted(timings.get(job_id, []), key=lambda c: c["time_us"] or float("inf")),
        })
    return {
        "gpus": gpus, "wall_seconds": round(wall, 1), "jobs": len(job_ids),
        "succeeded": sum(j["state"] == "succeeded" for j in jobs.values()),
        "results": sum(n for _k, n in per_key), "duplicated_results": sum(n - 1 for _k, n in per_key if n > 1),
        "jobs_run_more_than_once": sum(1 for _i, a in attempts if a > 1),
        "jobs_per_worker": {w.get("name"): w.get("jobs_succeeded") for w in workers.values()},
        "shapes": shapes,
    }


def _gpus() -> dict[str, Any]:
    from worker.device import visible_gpus

    gpus = visible_gpus()
    return {"name": gpus[0].gpu_name if gpus else None, "count": len(gpus),
            "driver": gpus[0].driver if gpus else None, "cuda": gpus[0].cuda_version if gpus else None}


def compare(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Wall-time ratios against the first run, and whether each shape kept its winner."""
    first = runs[0]
    out: dict[str, Any] = {"speedup_vs_first": {r["gpus"] + f"#{i}": round(first["wall_seconds"] / r["wall_seconds"], 2)
                                                for i, r in enumerate(runs)}}
    same = {}
    for i, r in enumerate(runs[1:], 1):
        same[r["gpus"] + f"#{i}"] = {
            a["name"]: {"same_winner": a["winner"] == b["winner"],
                        "kernel_us": [a["kernel_us"], b["kernel_us"]]}
            for a, b in zip(first["shapes"], r["shapes"], strict=True)}
    out["winners"] = same
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--suite", type=Path, default=Path("../shared/bench/suite.json"))
    p.add_argument("--db", required=True, help="PostgreSQL URL with rights to create databases")
    p.add_argument("--gpus", action="append", default=[], help="repeat: one run per GPU set, in order (none: --prefill only)")
    p.add_argument("--data-dir", type=Path, default=Path("/tmp/kiln-fleet"),
                   help="the workers' KILN_DATA_DIR: its compile-cache/ is shared by every run and GPU")
    p.add_argument("--limit", type=int, default=16, help="compiled variants per shape")
    p.add_argument("--only", nargs="*", default=None)
    p.add_argument("--prefill", action="store_true", help="compile every variant first, untimed")
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args()
    suite = json.loads(args.suite.read_text())["gemm"]
    if args.only:
        suite = [g for g in suite if g["name"] in args.only]
    (args.data_dir / "compile-cache").mkdir(parents=True, exist_ok=True)
    runs = []
    payload: dict[str, Any] = {}
    filled = prefill(suite, args.data_dir, args.limit) if args.prefill else None
    if filled:
        print(json.dumps({"prefill": filled}), flush=True)
        if not args.gpus:
            args.out.write_text(json.dumps({**provenance(None), "prefill": filled}, indent=1))
    for gpus in args.gpus:
        runs.append(run_fleet(suite, args.db, gpus, args.data_dir, args.limit, args.out.parent))
        payload = {**provenance(_gpus()), "benchmark": "fleet", "limit": args.limit, "prefill": filled,
                   "runs": runs, "comparison": compare(runs)}
        args.out.write_text(json.dumps(payload, indent=1, default=str))
        print(json.dumps({"gpus": gpus, "wall_seconds": runs[-1]["wall_seconds"], "succeeded": runs[-1]["succeeded"],
                          "duplicated_results": runs[-1]["duplicated_results"]}), flush=True)
    if runs:
        print(json.dumps(payload.get("comparison"), indent=1))


if __name__ == "__main__":
    main()
