"""The worker's long-lived measurement child: one process for many plans, a fresh one after a
crash, and an abandoned plan never bleeds into the next (scripted child, no GPU)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from worker.measure_process import MeasurementProcess


def _plan(tmp: Path, tag: str, **extra: Any) -> Path:
    path = tmp / f"{tag}.json"
    path.write_text(json.dumps({"tag": tag, "candidates": ["a", "b", "c"], **extra}))
    return path


def _done(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    return next((e["results"] for e in events if e["event"] == "done"), None)


def test_one_process_measures_plan_after_plan(tmp_path: Path) -> None:
    m = MeasurementProcess("0", tmp_path / "bench.log", module="tests.doubles.scripted_bench")
    try:
        first = _done(list(m.events(_plan(tmp_path, "one"))))
        second = _done(list(m.events(_plan(tmp_path, "two"))))
    finally:
        m.close()
    assert first and second and first["plan"] == "one" and second["plan"] == "two"
    assert first["pid"] == second["pid"]  # set up once, not once per job


def test_a_crash_ends_the_stream_and_the_next_plan_gets_a_fresh_process(tmp_path: Path) -> None:
    m = MeasurementProcess("0", tmp_path / "bench.log", module="tests.doubles.scripted_bench")
    try:
        crashed = list(m.events(_plan(tmp_path, "crash", crash_on="b")))
        assert _done(crashed) is None and crashed[-1] == {"event": "start", "name": "b"}
        assert m.returncode == 3 and "ILLEGAL_ADDRESS in b" in m.stderr_tail()
        rest = _done(list(m.events(_plan(tmp_path, "rest", skip=["b"]))))
    finally:
        m.close()
    assert rest and rest["plan"] == "rest"


def test_an_abandoned_plan_does_not_bleed_into_the_next(tmp_path: Path) -> None:
    m = MeasurementProcess("0", tmp_path / "bench.log", module="tests.doubles.scripted_bench")
    try:
        events = m.events(_plan(tmp_path, "cancelled", hang_on="b"))
        assert next(events)["name"] == "a"  # the job is cancelled here: the caller stops reading
        events.close()
        after = list(m.events(_plan(tmp_path, "next")))
    finally:
        m.close()
    assert after[0] == {"event": "start", "name": "a"} and _done(after)["plan"] == "next"  # type: ignore[index]
