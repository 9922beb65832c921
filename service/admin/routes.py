"""The admin dashboard: server-rendered pages under /admin, admin scope only.

Browsers sign in once with an admin token (kept in an HttpOnly, SameSite=Strict cookie); scripts
may send it as a bearer token instead. Live parts poll small HTML fragments with htmx.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from sqlalchemy import func, select

from service import auth
from service.admin.ceilings import ceilings_for
from service.admin.charts import Bar, candidates_chart, roofline, sparkline
from service.api.deps import DatabaseDep, ReadSessionDep, SessionDep, SettingsDep, _granted_scopes
from service.api.schemas import MAX_OFFSET, naive_utc
from service.api.views import job_out, result_out, worker_out
from service.auth import Scope
from service.db import cache_stats, queue, results
from service.db.models import Job, JobState, KernelBlob, TuningResult, Worker, utcnow
from service.specs.conv2d import Conv2dSpec

TEMPLATES = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))
COOKIE = "kiln_admin"
router = APIRouter(prefix="/admin", include_in_schema=False)


class NotSignedIn(Exception):
    """Raised by the auth dependency; the app turns it into a redirect (pages) or 401 (fragments)."""


async def admin_only(request: Request, db: DatabaseDep) -> None:
    header = request.headers.get("authorization")
    token = request.cookies.get(COOKIE)
    try:
        granted = await _granted_scopes(request, db, header or (f"Bearer {token}" if token else None))
    except Exception as exc:
        raise NotSignedIn() from exc
    if Scope.admin not in granted:
        raise NotSignedIn()


Admin = Annotated[None, Depends(admin_only)]


def page(request: Request, name: str, **context: Any) -> HTMLResponse:
    return TEMPLATES.TemplateResponse(request, name, {"now": utcnow(), **context})


@router.get("/login", response_class=HTMLResponse)
def login_form(request: Request, error: str | None = None) -> HTMLResponse:
    return page(request, "login.html", error=error)


@router.post("/login")
def login(request: Request, session: ReadSessionDep, token: Annotated[str, Form(max_length=200)]) -> Response:
    row = auth.resolve(session, token.strip())
    if row is None or Scope.admin not in auth.scopes_of(row):
        return page(request, "login.html", error="not an admin token")
    resp = RedirectResponse("/admin/", status_code=303)
    resp.set_cookie(COOKIE, token.strip(), httponly=True, samesite="strict", max_age=8 * 3600)
    return resp


@router.post("/logout")
def logout() -> Response:
    resp = RedirectResponse("/admin/login", status_code=303)
    resp.delete_cookie(COOKIE)
    return resp


def _overview(session: Any, lease_seconds: float) -> dict[str, Any]:
    counts = dict(session.execute(select(Job.state, func.count()).group_by(Job.state)).all())
    states = {s.value: counts.get(s, 0) for s in JobState}
    oldest = session.scalar(select(func.min(Job.created_at)).where(Job.state == JobState.queued))
    workers = [worker_out(w, lease_seconds=lease_seconds) for w in
               session.scalars(select(Worker).order_by(Worker.last_heartbeat_at.desc())).all()]
    since = utcnow() - timedelta(hours=24)
    stamps = session.scalars(select(TuningResult.created_at).where(TuningResult.created_at >= since)).all()
    per_hour = [0.0] * 24
    for t in stamps:
        per_hour[min(23, int((t - since).total_seconds() // 3600))] += 1
    per_hour_cache = cache_stats.hourly(session)
    hits = sum(h for _, h, _ in per_hour_cache)
    misses = sum(m for _, _, m in per_hour_cache)
    hit_rates = [h / (h + m) if h + m else 0.0 for _, h, m in per_hour_cache]
    recent = session.scalars(select(TuningResult).order_by(TuningResult.created_at.desc()).limit(10)).all()
    return {
        "states": states, "queue_depth": states["queued"],
        "oldest_age": (utcnow() - oldest).total_seconds() if oldest else 0.0,
        "workers": workers, "online": sum(1 for w in workers if w.online),
        "kernels": session.scalar(select(func.count()).select_from(KernelBlob)) or 0,
        "cache_bytes": session.scalar(select(func.coalesce(func.sum(KernelBlob.size), 0))) or 0,
        "results": session.scalar(select(func.count()).select_from(TuningResult)) or 0,
        "hit_rate": hits / (hits + misses) if hits + misses else None, "lookups": int(hits + misses),
        "tunes_per_hour": sparkline(per_hour), "hit_rate_per_hour": sparkline(hit_rates),
        "recent": [result_out(r) for r in recent],
    }


@router.get("/", response_class=HTMLResponse)
def overview(request: Request, session: ReadSessionDep, settings: SettingsDep, db: DatabaseDep, _a: Admin) -> HTMLResponse:
    with db.transaction() as writer:  # show this replica's lookups up to now, not as of the last sweep
        request.app.state.lookup_counter.flush(writer)
    return page(request, "overview.html", **_overview(session, settings.lease_seconds))


@router.get("/history", response_class=HTMLResponse)
def history(
    request: Request, session: ReadSessionDep, _a: Admin,
    op: str | None = None, arch: str | None = None, dtype: str | None = None, epilogue: str | None = None,
    since: str | None = None, min_speedup: str | None = None, max_speedup: str | None = None,
    sort: str = "created_at", order: str = "desc", offset: int = 0, limit: int = 25,
) -> HTMLResponse:
    sort = sort if sort in results.SORTABLE else "created_at"
    def num(v: str | None) -> float | None:
        try:
            return float(v) if v not in (None, "") else None
        except ValueError:
            return None
    try:
        since_dt = naive_utc(datetime.fromisoformat(since)) if since else None
    except ValueError:
        since_dt = None
    filters = results.HistoryFilter(op=op or None, arch=arch or None, dtype=dtype or None, epilogue=epilogue or None,
                                    since=since_dt, min_speedup=num(min_speedup), max_speedup=num(max_speedup))
    limit = max(1, min(200, limit))
    rows, total = results.list_results(session, filters=filters, sort=sort, descending=order != "asc",
                                       offset=min(max(0, offset), MAX_OFFSET), limit=limit)
    params = {"op": op or "", "arch": arch or "", "dtype": dtype or "", "epilogue": epilogue or "", "since": since or "",
              "min_speedup": min_speedup or "", "max_speedup": max_speedup or ""}
    return page(request, "history.html", rows=[result_out(r) for r in rows], total=total, offset=offset, limit=limit,
                sort=sort, order=order, params=params)


@router.get("/results/{spec_key}", response_class=HTMLResponse)
def result_detail(request: Request, spec_key: str, session: ReadSessionDep, _a: Admin) -> HTMLResponse:
    row = results.get_result(session, spec_key=spec_key, with_candidates=True)
    if row is None:
        return page(request, "missing.html", what=f"result {spec_key}")
    spec = row.spec
    bars = [Bar(c.name, c.time_us, c.kernel_sha256 == row.kernel_sha256 and c.name == (row.config or {}).get("name"))
            for c in row.candidates]
    winner_name = None
    if row.kernel_time_us:
        kernel_us = row.kernel_time_us
        best = min((c for c in row.candidates if c.time_us), key=lambda c: abs((c.time_us or 0.0) - kernel_us), default=None)
        winner_name = best.name if best else None
        bars = [Bar(b.label, b.value, b.label == winner_name) for b in bars]
    chart = candidates_chart(bars, row.baseline_time_us)
    roof = ""
    if row.kernel_time_us and row.op in ("gemm", "conv2d"):
        flops, moved = _work(row.op, spec)
        peak, bw = ceilings_for(row.measured_gpu)
        roof = roofline(flops, moved, row.kernel_time_us * 1e-6, peak, bw)
    ordered = sorted(row.candidates, key=lambda c: (c.time_us is None, c.time_us or 0.0))
    return page(request, "result.html", r=result_out(row), candidates=ordered, chart=chart, roofline=roof,
                winner_name=winner_name)


def _work(op: str, spec: dict) -> tuple[float, float]:
    """Useful FLOPs and compulsory bytes (fp16/bf16 operands, each read or written once)."""
    if op == "gemm":
        m, n, k, b = spec["m"], spec["n"], spec["k"], spec.get("batch", 1)
        return 2.0 * m * n * k * b, 2.0 * (m * k + n * k + m * n) * b
    conv = Conv2dSpec.model_validate(spec)
    p, q = conv.output_hw
    moved = 2.0 * (conv.n * conv.h * conv.w * conv.c + conv.k * conv.r * conv.s * conv.c + conv.n * p * q * conv.k)
    return float(conv.flops), moved


@router.get("/jobs/{job_id}", response_class=HTMLResponse)
def job_detail(request: Request, job_id: str, session: ReadSessionDep, _a: Admin) -> HTMLResponse:
    job = session.get(Job, job_id)
    if job is None:
        return page(request, "missing.html", what=f"job {job_id}")
    return page(request, "job.html", j=job_out(job))


@router.get("/jobs/{job_id}/progress", response_class=HTMLResponse)
def job_progress(request: Request, job_id: str, session: ReadSessionDep, _a: Admin) -> HTMLResponse:
    job = session.get(Job, job_id)
    if job is None:
        return HTMLResponse("gone", status_code=404)
    return TEMPLATES.TemplateResponse(request, "_progress.html", {"j": job_out(job)})


@router.post("/jobs/{job_id}/cancel")
def cancel(job_id: str, session: SessionDep, _a: Admin) -> Response:
    queue.cancel(session, job_id=job_id)
    return RedirectResponse(f"/admin/jobs/{job_id}", status_code=303)


@router.post("/jobs/{job_id}/retry")
def retry(job_id: str, session: SessionDep, _a: Admin) -> Response:
    job, _ = queue.retry(session, job_id=job_id)
    return RedirectResponse(f"/admin/jobs/{job.id}", status_code=303)


@router.get("/jobs", response_class=HTMLResponse)
def jobs(request: Request, session: ReadSessionDep, _a: Admin, state: str | None = None) -> HTMLResponse:
    stmt = select(Job)
    if state in {s.value for s in JobState}:
        stmt = stmt.where(Job.state == JobState(state))
    rows = session.scalars(stmt.order_by(Job.created_at.desc()).limit(100)).all()
    return page(request, "jobs.html", jobs=[job_out(j) for j in rows], state=state or "")


@router.get("/workers", response_class=HTMLResponse)
def workers(request: Request, session: ReadSessionDep, settings: SettingsDep, _a: Admin) -> HTMLResponse:
    rows = session.scalars(select(Worker).order_by(Worker.last_heartbeat_at.desc())).all()
    history = {
        w.id: [result_out(r) for r in session.scalars(
            select(TuningResult).where(TuningResult.worker_id == w.id).order_by(TuningResult.created_at.desc()).limit(5))]
        for w in rows
    }
    return page(request, "workers.html", workers=[worker_out(w, lease_seconds=settings.lease_seconds) for w in rows],
                history=history)
