"""The admin dashboard in a real browser against a real server with a seeded database."""

from __future__ import annotations

import httpx
import pytest

from tests.admin.conftest import shot

pytestmark = pytest.mark.slow


def test_unauthorized_access_is_refused(dashboard, browser) -> None:  # type: ignore[no-untyped-def]
    service, seeded = dashboard
    r = httpx.get(f"{service.url}/admin/", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/admin/login"
    r = httpx.get(f"{service.url}/admin/jobs/{seeded['running']}/progress", headers={"HX-Request": "true"})
    assert r.status_code == 401
    r = httpx.get(f"{service.url}/admin/history", cookies={"kiln_admin": "kiln_bogus"}, follow_redirects=False)
    assert r.status_code == 303
    page = browser.new_page()
    page.goto(f"{service.url}/admin/login")
    page.fill("#token", "kiln_not_a_token")
    page.click("#signin")
    assert page.inner_text("#login-error") == "not an admin token"
    page.close()


def test_every_page_renders_without_console_errors(signed_in, dashboard) -> None:  # type: ignore[no-untyped-def]
    service, seeded = dashboard
    page = signed_in
    pages = {
        "overview": "/admin/", "history": "/admin/history", "result": f"/admin/results/{seeded['keys'][3]}",
        "result_conv": f"/admin/results/{seeded['conv_key']}",
        "job_running": f"/admin/jobs/{seeded['running']}", "job_failed": f"/admin/jobs/{seeded['failed']}",
        "jobs": "/admin/jobs", "workers": "/admin/workers",
    }
    for name, path in pages.items():
        resp = page.goto(service.url + path)
        assert resp is not None and resp.status == 200, name
        page.wait_for_load_state("networkidle")
        shot(page, name)
    assert page.errors == []  # type: ignore[attr-defined]
    page.goto(service.url + "/admin/")
    assert page.inner_text("#state-running").startswith("1") and page.inner_text("#state-succeeded").startswith("12")
    page.goto(service.url + pages["result"])
    assert page.locator("svg[aria-label='candidate times'] rect").count() == 5
    assert page.locator("svg[aria-label='roofline'] circle").count() == 1
    assert page.locator("tr.winner").count() == 1
    assert page.get_attribute("#cubin", "href").startswith("/kernel/")
    page.goto(service.url + pages["result_conv"])  # a conv result: its own problem line and roofline
    assert "c64→k64 3×3" in page.inner_text("body")
    assert page.locator("svg[aria-label='roofline'] circle").count() == 1
    page.goto(service.url + pages["job_failed"])
    assert "boom" in page.inner_text("#job-error") and page.locator("#retry").count() == 1


def test_history_filters_sorting_and_paging(signed_in, dashboard) -> None:  # type: ignore[no-untyped-def]
    service, _ = dashboard
    page = signed_in
    page.goto(service.url + "/admin/history")
    assert page.locator("tr.row").count() == 12
    page.fill("#f-epilogue", "bias_gelu")
    page.click("#apply")
    page.wait_for_load_state("networkidle")
    epis = page.locator("td.epi").all_inner_texts()
    assert epis and set(epis) == {"bias_gelu"}
    page.goto(service.url + "/admin/history?sort=kernel_time_us&order=asc")
    times = [float(t) for t in page.locator("td.us").all_inner_texts()]
    assert times == sorted(times)
    page.click("#sort-kernel_time_us")  # toggles to descending
    page.wait_for_load_state("networkidle")
    times = [float(t) for t in page.locator("td.us").all_inner_texts()]
    assert times == sorted(times, reverse=True)
    page.goto(service.url + "/admin/history?limit=5")
    assert page.locator("tr.row").count() == 5
    page.click("#next")
    page.wait_for_load_state("networkidle")
    assert page.locator("tr.row").count() == 5 and "6–10 of 12" in page.inner_text(".pager")
    page.goto(service.url + "/admin/history?min_speedup=1.2")
    speedups = [float(t.rstrip("×")) for t in page.locator("td.speedup").all_inner_texts()]
    assert speedups and min(speedups) >= 1.2
    shot(page, "history_filtered")


def test_running_job_progress_updates_live(signed_in, dashboard) -> None:  # type: ignore[no-untyped-def]
    service, seeded = dashboard
    page = signed_in
    page.goto(f"{service.url}/admin/jobs/{seeded['running']}")
    assert page.inner_text("#p-compiled") == "3"
    with service.client() as c:
        c.post(f"/jobs/{seeded['running']}/progress", json={
            "lease_token": seeded["running_token"], "generated": 5904, "compiled": 12, "verified": 7, "timed": 5,
            "phase": "measuring"}).raise_for_status()
    page.wait_for_function("document.querySelector('#p-verified').innerText === '7'", timeout=10_000)
    assert page.inner_text("#job-phase") == "measuring"
    shot(page, "job_live")


def test_hit_rate_over_time_counts_lookups(signed_in, dashboard) -> None:  # type: ignore[no-untyped-def]
    service, _ = dashboard
    with service.client() as c:
        for m in (256, 512, 768):  # tuned in the seed: three hits
            assert c.post("/lookup", json={"problem": {"op": "gemm", "m": m, "n": 4096, "k": 1024,
                                                       "epilogue": ["none", "bias", "bias_gelu"][m // 256 - 1]}}).status_code == 200
        assert c.post("/lookup", json={"problem": {"op": "gemm", "m": 3, "n": 3, "k": 3}}).status_code == 404
    page = signed_in
    page.goto(service.url + "/admin/")
    assert page.locator("#hit-rate-chart svg rect").count() == 24
    rate = page.locator(".card", has_text="hit rate, 24 h").locator(".n").inner_text()
    assert rate.endswith("%") and rate != "0%"  # three hits among the seed's misses


def test_cancel_and_retry_buttons(signed_in, dashboard) -> None:  # type: ignore[no-untyped-def]
    service, seeded = dashboard
    page = signed_in
    page.goto(f"{service.url}/admin/jobs/{seeded['failed']}")
    page.click("#retry")
    page.wait_for_load_state("networkidle")
    assert f"/admin/jobs/{seeded['failed']}" not in page.url and page.inner_text("#job-state") == "queued"
    page.click("#cancel")
    page.wait_for_load_state("networkidle")
    assert page.inner_text("#job-state") == "cancelled"
    shot(page, "job_cancelled")
