"""What every benchmark result carries so anyone can rerun it: machine, GPU, driver, date, commit, command."""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


def git_commit() -> str:
    """KILN_GIT_COMMIT wins: a copy of the tree sent to a GPU host may carry stale git metadata."""
    if os.environ.get("KILN_GIT_COMMIT"):
        return os.environ["KILN_GIT_COMMIT"]
    try:
        rev = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True,
                             cwd=Path(__file__).resolve().parent).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True,
                               cwd=Path(__file__).resolve().parent).stdout.strip()
        return rev + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return os.environ.get("KILN_GIT_COMMIT", "unknown")


# Settings that change which kernels run or how they launch: a result timed under one of them cannot be
# rerun from its command line alone (session 36's PDL A/B ran under KILN_PDL=0, and its first files
# did not say so).
BEHAVIOUR_SETTINGS = ("KILN_PDL", "KILN_LAUNCH", "KILN_SKINNY", "KILN_SM90_CONV", "KILN_TUNE_LIMIT")


def command_line() -> str:
    """The command as a shell would rerun it, behaviour-changing settings in front."""
    settings = [f"{k}={os.environ[k]}" for k in BEHAVIOUR_SETTINGS if k in os.environ]
    return " ".join([*settings, os.path.basename(sys.executable), *sys.argv])


def provenance(gpu: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "git_commit": git_commit(),
        "command": command_line(),
        "host": {"machine": platform.machine(), "cpus": os.cpu_count(), "python": platform.python_version()},
        "gpu": gpu,
    }


def write_result(name: str, payload: dict[str, Any]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / name
    path.write_text(json.dumps(payload, indent=1, default=str) + "\n")
    return path


def save_result(payload: dict[str, Any], kind: str, gpu_name: str, out: Path | None) -> Path:
    """To `out` when given (a device run's $OUT), else bench/results/<kind>_<gpu>_<date>.json."""
    if out is not None:
        out.write_text(json.dumps(payload, indent=1, default=str))
        return out
    return write_result(f"{kind}_{gpu_name.split()[-1].lower()}_{dt.date.today():%Y%m%d}.json", payload)


def device_provenance(dev: Any) -> dict[str, Any]:
    """provenance() with the GPU a tuning step measured on (a worker.device.DeviceInfo)."""
    return provenance({"name": dev.gpu_name, "driver": dev.driver, "cuda": dev.cuda_version, "sm_count": dev.sm_count})


def read_floor_main(doc: str | None, measure: Any, benchmark: str) -> None:
    """The command line of a weight-read floor (`kiln bench floor`, `kiln bench tile-floor`): both
    time plain reads of the decode weights on the current GPU and store one result each."""
    import argparse

    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--reps", type=int, default=200)
    args = p.parse_args()
    import torch

    from worker.device import visible_gpus

    dev = next(d for d in visible_gpus() if d.gpu_index == torch.cuda.current_device())
    payload = {**device_provenance(dev), "benchmark": benchmark, "rows": measure(args.reps)}
    print(save_result(payload, benchmark, dev.gpu_name, args.out))


def geomean(values: list[float | None]) -> float | None:
    """Of the ratios that exist (a shape without a baseline has none)."""
    present = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in present) / len(present)) if present else None


def cuda_median_us(fn: Any, *args: Any, runs: int = 100, warmup: int = 10) -> float:
    """Median CUDA-event time of fn(*args) in µs, synchronizing after each run: for whole model
    blocks, where host time counts too (a block that is host-bound shows it)."""
    import torch

    for _ in range(warmup):
        fn(*args)
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn(*args)
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) * 1000)
    return statistics.median(times)


def graph_median_us(fn: Any, *args: Any, runs: int = 100, warmup: int = 10) -> float:
    """Median CUDA-event time of one CUDA-graph replay of fn(*args): GPU time only, as a serving
    stack that captures its model runs it (host time per op does not count). fn must be
    capturable and already warm (Kiln kernels prepare their shapes on the first, uncaptured call)."""
    import torch

    for _ in range(warmup):
        fn(*args)
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn(*args)  # pointer memos and allocator state for the capture stream
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn(*args)
    return cuda_median_us(graph.replay, runs=runs, warmup=warmup)
