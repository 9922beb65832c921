"""`kiln` commands against a live service: output, progress and exit codes CI jobs rely on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.system.conftest import ADMIN, LiveService, start_service

pytestmark = pytest.mark.slow


def kiln(live: LiveService | None, *args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    base = dict(live.env) if live else {**os.environ, "KILN_SERVER_URL": "http://127.0.0.1:9", "KILN_TOKEN": ADMIN}
    return subprocess.run([sys.executable, "-m", "service.cli.main", *args], cwd=REPO, env={**base, **(env or {})},
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def live_sqlite(tmp_path: Path):  # type: ignore[no-untyped-def]
    service = start_service(f"sqlite:///{tmp_path / 'kiln.db'}", tmp_path, lease_seconds="5", reaper_interval_seconds="1")
    yield service
    service.stop()


def test_tune_waits_with_progress_then_serves_from_cache(live_sqlite: LiveService, tmp_path: Path) -> None:
    live_sqlite.start_worker("w0", {"KILN_SIM_FAIL_EPILOGUE": "relu"})
    r = kiln(live_sqlite, "tune", "--gemm", "4096x768x3072", "--epilogue", "bias_gelu", "--timeout", "60")
    assert r.returncode == 0, r.stderr
    assert "succeeded" in r.stdout and "1.20x (kiln)" in r.stdout
    again = kiln(live_sqlite, "tune", "--gemm", "4096x768x3072", "--epilogue", "bias_gelu", "--json")
    rows = json.loads(again.stdout)
    assert again.returncode == 0 and rows[0]["state"] == "cached"
    sha = rows[0]["result"]["kernel"]["sha256"]
    fetched = kiln(live_sqlite, "fetch", sha, "--out", str(tmp_path / "k"))
    assert fetched.returncode == 0, fetched.stderr
    assert (tmp_path / "k" / f"{sha}.cubin").read_bytes().startswith(b"\x7fELF")
    assert json.loads((tmp_path / "k" / f"{sha}.json").read_text())["sha256"] == sha
    found = kiln(live_sqlite, "lookup", "--gemm", "4096x768x3072", "--epilogue", "bias_gelu", "--json")
    assert found.returncode == 0 and json.loads(found.stdout)["kernel"]["sha256"] == sha
    status = kiln(live_sqlite, "status")
    assert status.returncode == 0 and "w0" in status.stdout


def test_failed_job_exits_1_and_says_why(live_sqlite: LiveService) -> None:
    live_sqlite.start_worker("w0", {"KILN_SIM_FAIL_EPILOGUE": "relu"})
    r = kiln(live_sqlite, "tune", "--gemm", "128x128x128", "--epilogue", "relu", "--timeout", "60")
    assert r.returncode == 1 and "no variant passed verification" in r.stderr


def test_no_wait_and_file_input(live_sqlite: LiveService, tmp_path: Path) -> None:
    spec = tmp_path / "specs.yaml"
    spec.write_text("target: {arch: sm_90a}\nproblems:\n  - {op: gemm, m: 64, n: 64, k: 64}\n"
                    "  - {op: conv2d, n: 1, h: 8, w: 8, c: 8, k: 8, r: 3, s: 3, padding: [1, 1]}\n")
    r = kiln(live_sqlite, "tune", "--file", str(spec), "--no-wait", "--json")
    assert r.returncode == 0, r.stderr
    assert [row["state"] for row in json.loads(r.stdout)] == ["queued", "queued"]


def test_worker_on_a_gpu_no_target_loads_on_exits_2_saying_so(live_sqlite: LiveService) -> None:
    from tests.system.conftest import SIM_STEP

    r = kiln(live_sqlite, "worker", "--step", SIM_STEP, "--name", "t4", "--exit-when-idle",
             env={"KILN_SIM_CAPABILITY": "7.5"}, timeout=60)
    assert r.returncode == 2 and "compute capability 7.5" in r.stdout + r.stderr, r.stdout + r.stderr
    assert "Traceback" not in r.stderr


def test_timeout_exits_3(live_sqlite: LiveService) -> None:
    r = kiln(live_sqlite, "tune", "--gemm", "64x64x64", "--timeout", "1")  # no worker running
    assert r.returncode == 3 and "timed out" in r.stderr


def test_bad_input_exits_2_naming_the_problem(live_sqlite: LiveService) -> None:
    r = kiln(live_sqlite, "tune", "--gemm", "64x64")
    assert r.returncode == 2 and "MxNxK" in r.stderr
    r = kiln(live_sqlite, "tune", "--gemm", "64x64x64", "--epilogue", "tanh")
    assert r.returncode == 2 and "epilogue" in r.stderr
    r = kiln(live_sqlite, "tune", "--gemm", "64x64x64", "--arch", "sm_70")
    assert r.returncode == 2 and "arch" in r.stderr


def test_unreachable_service_exits_4() -> None:
    r = kiln(None, "tune", "--gemm", "64x64x64")
    assert r.returncode == 4 and "cannot reach" in r.stderr


def test_token_create_and_db_upgrade(tmp_path: Path) -> None:
    env = {"KILN_DATA_DIR": str(tmp_path), "KILN_DATABASE_URL": f"sqlite:///{tmp_path / 'k.db'}"}
    assert kiln(None, "db", "upgrade", env=env).returncode == 0
    r = kiln(None, "token", "create", "--name", "ci", "--scope", "submit", env=env)
    assert r.returncode == 0 and r.stdout.strip().startswith("kiln_")


def test_compile_explains_the_pruning_funnel_for_gemm_and_conv() -> None:
    gemm = kiln(None, "compile", "--gemm", "4096x768x3072", "--epilogue", "bias", "--explain", "--limit", "4")
    assert gemm.returncode == 0, gemm.stderr
    assert "fills_the_gpu" in gemm.stdout and "compiling the best 4" in gemm.stdout
    conv = kiln(None, "compile", "--conv", "32x224x224x3x64x7x7", "--stride", "2", "--padding", "3",
                "--epilogue", "bias_relu", "--explain", "--limit", "4")
    assert conv.returncode == 0, conv.stderr
    assert "conv_alignment_fits" in conv.stdout and "padc4" in conv.stdout  # the C=3 stem is padded


def test_compile_takes_many_problems_and_compiles_what_a_worker_would() -> None:
    """Every problem is selected with the worker's own code (worker/selection.py); the union of
    their configs is what gets compiled, so a CPU host can fill a GPU host's compile cache."""
    from service.specs import GemmSpec
    from worker.kernels.hardware import hardware_for
    from worker.selection import select_gemm

    out = kiln(None, "compile", "--gemm", "16x4096x4096", "--gemm", "4096x768x3072", "--epilogue", "bias",
               "--explain", "--limit", "3")
    assert out.returncode == 0, out.stderr
    for m, n, k in ((16, 4096, 4096), (4096, 768, 3072)):
        chosen = select_gemm(GemmSpec(m=m, n=n, k=k, epilogue="bias"), "sm_90a", hardware_for("sm_90a"), 3)
        assert f"{m}x{n}x{k} bias" in out.stdout
        assert all(cfg.name in out.stdout for cfg in chosen.report.kept)


def test_conv_flags_build_the_spec() -> None:
    import argparse

    from service.cli.problems import add_problem_flags, problems_from_args

    p = argparse.ArgumentParser()
    add_problem_flags(p)
    args = p.parse_args(["--conv", "2x9x9x24x32x3x3", "--padding", "2", "--dilation", "2", "--layout", "NCHW",
                         "--epilogue", "bias_silu"])
    [problem], _ = problems_from_args(args)
    assert problem["dilation"] == [2, 2] and problem["padding"] == [2, 2] and problem["layout"] == "NCHW"
    assert problem["epilogue"] == "bias_silu"
