"""The fleet benchmark's prefill must fill the cache the workers read, with what they will ask for:
session 4 lost a device run to a prefill that wrote where no worker looked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench import fleet
from service.specs import GemmSpec
from worker.kernels.hardware import hardware_for
from worker.selection import select_gemm


def test_prefill_compiles_the_workers_selection_into_their_compile_cache(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    seen: dict[str, Any] = {}

    class RecordingCompiler:
        def __init__(self, cache: Path, jobs: int | None = None) -> None:
            seen["cache"] = cache

        def compile_all(self, configs: list, target_arch: str) -> list:
            seen["configs"], seen["arch"] = configs, target_arch
            return []

    monkeypatch.setattr("worker.kernels.compiler.Compiler", RecordingCompiler)
    suite = [{"name": "a", "m": 4096, "n": 768, "k": 3072, "epilogue": "bias"}, {"name": "b", "m": 16, "n": 4096, "k": 4096}]
    fleet.prefill(suite, tmp_path, limit=4)
    assert seen["cache"] == tmp_path / "compile-cache"  # the workers' $KILN_DATA_DIR/compile-cache
    hw = hardware_for("sm_90a", 132)
    wanted = {cfg.compiled for g in suite for cfg in select_gemm(
        GemmSpec(m=g["m"], n=g["n"], k=g["k"], epilogue=g.get("epilogue", "none")), "sm_90a", hw, 4).report.kept}
    assert {cfg.compiled for cfg in seen["configs"]} == wanted
