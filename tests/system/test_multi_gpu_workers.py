"""`kiln worker --gpus 0,1`: a worker process per GPU; one dying does not stall the other."""

from __future__ import annotations

import collections
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import REPO
from tests.system.conftest import SIM_STEP, LiveService, submit_gemms, wait_all_final
from worker.supervisor import parse_gpus

pytestmark = pytest.mark.slow


def test_parse_gpus() -> None:
    assert parse_gpus("0,1", 0) == [0, 1] and parse_gpus("all", 2) == [0, 1] and parse_gpus("1, 0,1", 0) == [0, 1]
    for bad in ("all", "x", "", "-1"):
        with pytest.raises(ValueError):
            parse_gpus(bad, 0)


def test_gpu_workers_split_the_hosts_compile_cores() -> None:
    from worker.supervisor import child_env

    cores = os.cpu_count() or 1
    assert child_env(1, {})["KILN_COMPILE_JOBS"] == str(cores)
    assert child_env(2, {})["KILN_COMPILE_JOBS"] == str(cores)  # two pools of all cores: 2 × cores at most
    assert child_env(8, {})["KILN_COMPILE_JOBS"] == str(max(1, cores // 4))
    assert child_env(1024, {})["KILN_COMPILE_JOBS"] == "1"
    assert child_env(2, {"KILN_COMPILE_JOBS": "5"})["KILN_COMPILE_JOBS"] == "5"  # the user's choice wins


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [int(p) for p in out]


@pytest.mark.service_settings(lease_seconds="2", reaper_interval_seconds="0.3", retry_backoff_seconds="0")
def test_one_worker_per_gpu_and_a_dead_one_is_restarted(live: LiveService) -> None:
    sup = subprocess.Popen([sys.executable, "-m", "service.cli.main", "worker", "--gpus", "0,1", "--step", SIM_STEP,
                            "--idle-sleep", "0.1"], cwd=REPO, env={**live.env, "KILN_SIM_MIN_SECONDS": "0.05",
                                                                   "KILN_SIM_MAX_SECONDS": "0.15"},
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        with live.client() as client:
            ids = submit_gemms(client, 60)
            deadline = time.monotonic() + 30
            while len(_children(sup.pid)) < 2 and time.monotonic() < deadline:
                time.sleep(0.2)
            first = _children(sup.pid)
            assert len(first) == 2
            time.sleep(1.0)
            os.kill(first[0], signal.SIGKILL)  # one GPU's process dies mid-run
            final = wait_all_final(client, ids, timeout=120)
            workers = {w["name"]: w for w in client.get("/workers").json()}
        assert collections.Counter(j["state"] for j in final.values()) == {"succeeded": 60}
        assert {"gpu0", "gpu1"} <= set(workers) and {w["gpu_index"] for w in workers.values()} == {0, 1}
        assert all(workers[n]["jobs_succeeded"] > 0 for n in ("gpu0", "gpu1"))
        now = _children(sup.pid)
        assert len(now) == 2 and first[0] not in now  # restarted under the supervisor
    finally:
        sup.send_signal(signal.SIGTERM)
        sup.wait(timeout=30)


def test_children_that_finish_or_are_refused_are_not_restarted(live: LiveService) -> None:
    """`--exit-when-idle` drains the queue and returns (it used to restart idle children forever);
    a GPU the service refuses ends the supervisor with 2 rather than a restart loop."""
    with live.client() as client:
        ids = submit_gemms(client, 10)
        done = subprocess.run([sys.executable, "-m", "service.cli.main", "worker", "--gpus", "0,1", "--step", SIM_STEP,
                               "--idle-sleep", "0.1", "--exit-when-idle"], cwd=REPO, env=live.env,
                              capture_output=True, timeout=90)
        assert done.returncode == 0, done.stderr[-2000:]
        assert collections.Counter(j["state"] for j in wait_all_final(client, ids, timeout=10).values()) == {"succeeded": 10}
    refused = subprocess.run([sys.executable, "-m", "service.cli.main", "worker", "--gpus", "0,1", "--step", SIM_STEP,
                              "--idle-sleep", "0.1"], cwd=REPO, env={**live.env, "KILN_SIM_CAPABILITY": "7.5"},
                             capture_output=True, timeout=60)
    assert refused.returncode == 2 and b"not restarting" in refused.stderr, refused.stderr[-2000:]


_CRASH_LOOP = """
import subprocess, sys, time
from worker.supervisor import Child, Supervisor

class CrashLoop(Supervisor):
    # GPU 0 crashes at once, already deep in its backoff (a minute); GPU 1 runs on.
    def _spawn(self, gpu, restarts=0):
        code = "import sys; sys.exit(3)" if gpu == 0 else "import time; time.sleep(600)"
        return Child(gpu, subprocess.Popen([sys.executable, "-c", code]), time.monotonic(), max(restarts, 7))

sys.exit(CrashLoop([0, 1], []).run())
"""


def test_sigterm_does_not_wait_out_a_crashing_gpus_backoff() -> None:
    """A restart is scheduled, not slept on: SIGTERM during a minute's backoff stops the supervisor and
    its healthy children at once (it used to sleep the minute first, past systemd's and Kubernetes'
    stop grace)."""
    sup = subprocess.Popen([sys.executable, "-c", _CRASH_LOOP], cwd=REPO, stderr=subprocess.PIPE)
    time.sleep(2.5)
    assert sup.poll() is None and len(_children(sup.pid)) == 1  # GPU 1 alive, GPU 0 backing off
    sent = time.monotonic()
    sup.send_signal(signal.SIGTERM)
    sup.wait(timeout=30)
    assert time.monotonic() - sent < 5, "the supervisor slept out the backoff before stopping"
    assert b"restarting in 60.0s" in sup.stderr.read()  # type: ignore[union-attr]
