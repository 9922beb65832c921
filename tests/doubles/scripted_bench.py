"""Stands in for `worker.gpu_bench --serve` where there is no GPU: the same line protocol (a plan's
path per stdin line, JSON events on stdout ending in `done`), with a plan that can ask it to die
mid-plan (as a faulting kernel makes the real one) or to hang (so the caller abandons it or its
stall limit kills it). Candidates are names, or the tuning step's entries (dicts with a name; one
named `hung…` never finishes)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path


def emit(**event: object) -> None:
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def main() -> None:
    emit(event="ready")
    for line in sys.stdin:
        plan = json.loads(Path(line.strip()).read_text())
        measured = {}
        for candidate in plan["candidates"]:
            name = candidate["name"] if isinstance(candidate, dict) else candidate
            if name in plan.get("skip", []):
                continue
            emit(event="start", name=name)
            if name == plan.get("crash_on"):
                print(f"CUDA_ERROR_ILLEGAL_ADDRESS in {name}", file=sys.stderr, flush=True)
                os._exit(3)
            if name == plan.get("hang_on") or name.startswith("hung"):
                time.sleep(60)
            emit(event="verified", name=name, ok=True)
            emit(event="timed", name=name)
            measured[name] = {"status": "timed", "median_us": 1.0}
        emit(event="done", results={"pid": os.getpid(), "plan": plan.get("tag"), "candidates": measured})


if __name__ == "__main__":
    main()
