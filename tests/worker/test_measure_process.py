"""The worker's long-lived measurement child: one process for many plans, a fresh one after a
crash, and an abandoned plan never bleeds into the next (scripted child, no GPU)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from service.specs import GemmSpec
from worker.gpu_step import GpuTuningStep
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


def test_a_hung_kernel_is_killed_after_the_stall_limit_and_the_rest_measured(tmp_path: Path) -> None:
    m = MeasurementProcess("0", tmp_path / "bench.log", module="tests.doubles.scripted_bench", stall_seconds=1.5)
    try:
        hung = list(m.events(_plan(tmp_path, "hang", hang_on="b")))  # b never finishes (the double sleeps 60 s)
        assert _done(hung) is None and hung[-1] == {"event": "start", "name": "b"}
        assert m.stalled and m.returncode is not None  # killed, not left running
        rest = list(m.events(_plan(tmp_path, "rest", skip=["b"])))
    finally:
        m.close()
    assert not m.stalled and _done(rest)["plan"] == "rest"  # type: ignore[index]


def test_the_tuning_step_records_the_hung_candidate_and_measures_the_others(tmp_path: Path) -> None:
    step = GpuTuningStep.__new__(GpuTuningStep)  # its measurement side only: no GPU, no compiler
    step.measurer = MeasurementProcess("0", tmp_path / "bench.log", module="tests.doubles.scripted_bench",
                                       stall_seconds=1.5)
    candidates = [{"name": n} for n in ("fast", "hung_streamk", "slow")]
    try:
        results = step._measure(GemmSpec(m=64, n=64, k=64), candidates, tmp_path, lambda **_: None, 3, 3)
    finally:
        step.close()
    assert results["candidates"]["fast"]["status"] == results["candidates"]["slow"]["status"] == "timed"
    hung = results["candidates"]["hung_streamk"]
    assert hung["status"] == "launch_failed" and hung["reason"].startswith("hung: nothing from it for 2 s")
