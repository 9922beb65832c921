"""Many worker processes leasing from one queue: every job completes exactly once."""

from __future__ import annotations

import collections
import json
import time
from pathlib import Path

import pytest

from tests.system.conftest import LiveService, submit_gemms, wait_all_final

pytestmark = pytest.mark.slow


@pytest.mark.service_settings(lease_seconds="30", reaper_interval_seconds="1")
def test_eight_workers_500_jobs_exactly_once(live: LiveService, tmp_path: Path) -> None:
    with live.client() as client:
        ids = submit_gemms(client, 500)
        started = time.monotonic()
        for i in range(8):
            live.start_worker(f"w{i}", {"KILN_SIM_MIN_SECONDS": "0.005", "KILN_SIM_MAX_SECONDS": "0.02"})
        final = wait_all_final(client, ids, timeout=300)
        elapsed = time.monotonic() - started
        assert len(final) == 500, f"{500 - len(final)} jobs never finished"
        assert collections.Counter(j["state"] for j in final.values()) == {"succeeded": 500}
        results = client.get("/results", params={"limit": 500}).json()
        assert results["total"] == 500
        assert len({r["spec_key"] for r in results["items"]}) == 500
        assert {r["job_id"] for r in results["items"]} == set(ids)
        workers = client.get("/workers").json()
    executions = (tmp_path / "executions.log").read_text().split("\n")[:-1]
    per_job = collections.Counter(line.split()[0] for line in executions)
    assert set(per_job) == set(ids) and max(per_job.values()) == 1, "a job ran twice without any crash"
    busy = [w for w in workers if w["jobs_succeeded"] > 0]
    assert len(busy) == 8, "every worker should have taken part"
    print(json.dumps({"jobs": 500, "workers": 8, "seconds": round(elapsed, 1),
                      "per_worker": sorted(w["jobs_succeeded"] for w in workers)}))
