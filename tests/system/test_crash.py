"""SIGKILL workers in the middle of their leases: every job still finishes, once, nothing lost."""

from __future__ import annotations

import collections
import json
import os
import random
import signal
import time
from pathlib import Path

import pytest

from tests.system.conftest import LiveService, submit_gemms, wait_all_final

pytestmark = pytest.mark.slow

JOBS = 200
MIN_KILLS = 20


@pytest.mark.service_settings(lease_seconds="1.5", reaper_interval_seconds="0.3", retry_backoff_seconds="0",
                              max_attempts="50")
def test_sigkill_mid_lease_loses_nothing(live: LiveService, tmp_path: Path) -> None:
    # Steps long enough that the poll below (a /workers call and one /jobs call per busy worker)
    # still finds a step running when the kill lands on a loaded CI host: with 0.15-0.4 s steps,
    # 6 of 20 kills once hit a worker whose step had just ended (session 19).
    sim = {"KILN_SIM_MIN_SECONDS": "0.4", "KILN_SIM_MAX_SECONDS": "0.9"}
    log = tmp_path / "executions.log"
    rng = random.Random(7)
    with live.client() as client:
        ids = submit_gemms(client, JOBS)
        workers = {f"w{i}": live.start_worker(f"w{i}", sim) for i in range(8)}
        born = {name: time.monotonic() for name in workers}
        kills = mid_lease = 0
        started = time.monotonic()
        while kills < MIN_KILLS and time.monotonic() - started < 240:
            time.sleep(rng.uniform(0.1, 0.3))
            # Pick a worker that holds a lease right now (the service's view), and kill it.
            # A restarted process has not re-registered for a second or so, and until it does the
            # service still shows the killed process's lease: leave young processes alone.
            # Only a worker whose step has begun (its job reports the step's first phase, which the
            # simulated step sends after it logged the execution) is sure to have work a kill interrupts:
            # one between lease and step, or between its result and the service's view, would be
            # re-leased without a second execution, and on a loaded CI host those windows grow.
            busy = sorted(w["name"] for w in client.get("/workers").json()
                          if w["current_job_id"] and w["online"] and time.monotonic() - born[w["name"]] > 2.5
                          and client.get(f"/jobs/{w['current_job_id']}").json()["progress"]["phase"] == "compiling")
            if not busy:
                continue
            name = rng.choice(busy)
            proc = workers[name]
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            kills += 1
            mid_lease += 1
            workers[name] = live.start_worker(name, sim)
            born[name] = time.monotonic()
        final = wait_all_final(client, ids, timeout=300)
        recovery = time.monotonic() - started
        results = client.get("/results", params={"limit": 500}).json()
    states = collections.Counter(j["state"] for j in final.values())
    executions = collections.Counter(line.split()[0] for line in log.read_text().splitlines())
    reruns = sum(n - 1 for n in executions.values())
    re_leases = sum(j["attempts"] - 1 for j in final.values())
    report = {"jobs": JOBS, "kills": kills, "kills_mid_lease": mid_lease, "re_executions": reruns, "re_leases": re_leases,
              "states": dict(states), "results": results["total"], "seconds": round(recovery, 1)}
    print(json.dumps(report))
    assert kills >= MIN_KILLS
    # The kills really interrupted work, which was redone (a restarted worker resumes its own lease).
    assert reruns >= MIN_KILLS * 3 // 4, report
    assert len(final) == JOBS and states == {"succeeded": JOBS}, report
    assert results["total"] == JOBS and len({r["spec_key"] for r in results["items"]}) == JOBS
    assert {r["job_id"] for r in results["items"]} == set(ids)
    assert reruns >= 1, "no kill interrupted a job: the test proved nothing"
