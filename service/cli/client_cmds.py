"""Client commands: `kiln tune`, `lookup`, `fetch`, `status`. Exit codes a CI job can rely on:
0 all tuned, 1 some job failed or was cancelled, 2 bad input, 3 timed out, 4 service unreachable."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import httpx
from pydantic import ValidationError
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from service.cli.problems import add_problem_flags, problems_from_args
from service.client import KilnClient, KilnHTTPError
from service.settings import get_settings

EXIT_OK, EXIT_FAILED, EXIT_INPUT, EXIT_TIMEOUT, EXIT_UNREACHABLE = 0, 1, 2, 3, 4
out = Console()
err = Console(stderr=True)


def add(sub: argparse._SubParsersAction) -> None:
    t = sub.add_parser("tune", help="submit problems and wait for their kernels")
    add_problem_flags(t)
    t.add_argument("--no-wait", action="store_true", help="return once queued")
    t.add_argument("--timeout", type=float, default=3600.0, help="seconds to wait for all jobs")
    t.add_argument("--json", action="store_true", help="machine-readable output")
    t.set_defaults(func=_guard(tune))

    lk = sub.add_parser("lookup", help="the tuned kernel for one problem")
    add_problem_flags(lk)
    lk.add_argument("--json", action="store_true")
    lk.set_defaults(func=_guard(lookup))

    f = sub.add_parser("fetch", help="download a cubin (sha256-verified) and its launch metadata")
    f.add_argument("sha256")
    f.add_argument("--out", type=Path, default=Path("."))
    f.set_defaults(func=_guard(fetch))

    s = sub.add_parser("status", help="a job's state, or the queue and workers")
    s.add_argument("job_id", nargs="?")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_guard(status))


def _guard(fn):  # type: ignore[no-untyped-def]
    def run(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except (ValueError, ValidationError) as exc:
            err.print(f"[red]error[/]: {exc}")
            return EXIT_INPUT
        except KilnHTTPError as exc:
            err.print(f"[red]error[/]: {exc}")
            return EXIT_INPUT if 400 <= exc.status < 500 else EXIT_UNREACHABLE
        except httpx.TransportError as exc:
            err.print(f"[red]error[/]: cannot reach {get_settings().server_url}: {exc}")
            return EXIT_UNREACHABLE

    return run


def _client() -> KilnClient:
    return KilnClient.from_settings(get_settings())


def tune(args: argparse.Namespace) -> int:
    problems, target = problems_from_args(args)
    with _client() as client:
        resp = client.tune(problems, target)
        items = resp["items"]
        pending = {i["job_id"]: i for i in items if i["status"] != "cached"}
        final: dict[str, dict[str, Any]] = {}
        if pending and not args.no_wait:
            waited = _wait(client, list(pending), args.timeout, quiet=args.json)
            if waited is None:
                err.print(f"[red]timed out[/] after {args.timeout:.0f}s")
                return EXIT_TIMEOUT
            final = waited
    rows = []
    for item in items:
        job = final.get(item.get("job_id") or "", {})
        result = item.get("result") or job.get("result")
        state = "cached" if item["status"] == "cached" else job.get("state", item["status"])
        rows.append({"index": item["index"], "spec_key": item["spec_key"], "state": state, "job_id": item.get("job_id"),
                     "error": job.get("error"), "result": result})
    if args.json:
        out.print_json(json.dumps(rows))
    else:
        _table(rows, problems)
    if args.no_wait:
        return EXIT_OK
    return EXIT_OK if all(r["state"] in ("cached", "succeeded") for r in rows) else EXIT_FAILED


def _wait(client: KilnClient, job_ids: list[str], timeout: float, quiet: bool) -> dict[str, dict[str, Any]] | None:
    deadline = time.monotonic() + timeout
    final: dict[str, dict[str, Any]] = {}
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[detail]}"),
                  TimeElapsedColumn(), console=err, disable=quiet, transient=False) as bar:
        tasks = {j: bar.add_task(j[:8], total=None, detail="queued") for j in job_ids}
        while len(final) < len(job_ids):
            if time.monotonic() > deadline:
                return None
            for j in job_ids:
                if j in final:
                    continue
                job = client.job(j)
                p = job["progress"]
                detail = (f"{job['state']} {p.get('phase') or ''} gen {p['generated']} comp {p['compiled']} "
                          f"ver {p['verified']} timed {p['timed']}")
                total = p["generated"] or None
                bar.update(tasks[j], total=total, completed=p["timed"], detail=detail)
                if job["state"] in ("succeeded", "failed", "cancelled"):
                    final[j] = job
                    bar.update(tasks[j], total=1, completed=1)
            time.sleep(0.5)
    return final


def _describe(problem: dict[str, Any]) -> str:
    if problem["op"] == "gemm":
        return f"gemm {problem['m']}x{problem['n']}x{problem['k']} {problem['dtype']} {problem['epilogue']}"
    return (f"conv2d n{problem['n']} {problem['h']}x{problem['w']} c{problem['c']} k{problem['k']} "
            f"{problem['r']}x{problem['s']} {problem['dtype']} {problem['epilogue']}")


def _table(rows: list[dict[str, Any]], problems: list[dict[str, Any]]) -> None:
    table = Table("problem", "state", "kernel", "µs", "vs library", "job")
    for row in rows:
        r = row["result"] or {}
        kernel = (r.get("kernel") or {}).get("sha256", "")[:12]
        speed = f"{r['speedup']:.2f}x ({r['recommendation']})" if r.get("speedup") else ""
        us = f"{r['kernel_time_us']:.1f}" if r.get("kernel_time_us") else ""
        table.add_row(_describe(problems[row["index"]]), row["state"], kernel, us, speed, (row["job_id"] or "")[:8])
    out.print(table)
    for row in rows:
        if row["error"]:
            err.print(f"[red]{row['job_id']}[/]: {row['error'].splitlines()[-1] if row['error'] else ''}")


def lookup(args: argparse.Namespace) -> int:
    problems, target = problems_from_args(args)
    with _client() as client:
        result = client.lookup(problems[0], target)
    if result is None:
        err.print("not tuned")
        return EXIT_FAILED
    if args.json:
        out.print_json(json.dumps(result))
    else:
        _table([{"index": 0, "state": "cached", "job_id": None, "error": None, "result": result}], problems[:1])
    return EXIT_OK


def fetch(args: argparse.Namespace) -> int:
    with _client() as client:
        meta = client.meta(args.sha256)
        dest = args.out / f"{args.sha256}.cubin"
        client.fetch(args.sha256, dest)
    (args.out / f"{args.sha256}.json").write_text(json.dumps(meta, indent=1))
    out.print(f"{dest} ({dest.stat().st_size} bytes, sha256 verified) and {args.sha256}.json")
    return EXIT_OK


def status(args: argparse.Namespace) -> int:
    with _client() as client:
        if args.job_id:
            job = client.job(args.job_id)
            out.print_json(json.dumps(job)) if args.json else out.print(job)
            return EXIT_OK
        jobs = client.jobs(limit=20)
        workers = client.workers()
    if args.json:
        out.print_json(json.dumps({"jobs": jobs, "workers": workers}))
        return EXIT_OK
    jt = Table("job", "op", "state", "attempts", "progress", "created")
    for j in jobs:
        p = j["progress"]
        jt.add_row(j["id"][:8], j["op"], j["state"], str(j["attempts"]),
                   f"{p['generated']}/{p['compiled']}/{p['verified']}/{p['timed']}", j["created_at"][:19])
    wt = Table("worker", "gpu", "arches", "online", "job", "done", "failed")
    for w in workers:
        wt.add_row(w["name"], w["gpu_name"], ",".join(w["arches"]), "yes" if w["online"] else "no",
                   (w["current_job_id"] or "")[:8], str(w["jobs_succeeded"]), str(w["jobs_failed"]))
    out.print(jt)
    out.print(wt)
    return EXIT_OK


