"""Clients: submit problems for tuning, look up tuned kernels."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response, status
from fastapi.responses import JSONResponse
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from service import tuning
from service.api.deps import SessionDep, SettingsDep, SubmitAuth, idempotency_key
from service.api.errors import WITH_BODY, unprocessable
from service.api.result_cache import ResultCache
from service.api.schemas import LookupRequest, NotTuned, ResultOut, TuneResponse
from service.api.views import result_out
from service.db.engine import Database
from service.db.models import IdempotencyRecord
from service.metrics import CACHE_LOOKUPS
from service.specs import Target, TuneRequest

router = APIRouter(tags=["tune"])


@router.post(
    "/tune",
    response_model=TuneResponse,
    responses={202: {"model": TuneResponse, "description": "some problems were queued"}, **WITH_BODY},
    summary="Tune a batch of problems: cached ones return at once, the rest become jobs",
)
def tune(
    body: TuneRequest, request: Request, session: SessionDep, settings: SettingsDep, _auth: SubmitAuth, response: Response,
    key: str | None = Depends(idempotency_key),
) -> TuneResponse | JSONResponse:
    if len(body.problems) > settings.max_batch:
        return unprocessable(["body", "problems"], f"at most {settings.max_batch} problems per request", "too_long")
    digest = tuning.request_digest(body.model_dump(mode="json"))
    if key is not None:
        record = session.scalar(select(IdempotencyRecord).where(IdempotencyRecord.key == key))
        if record is not None:
            if record.request_sha256 != digest:
                return unprocessable(["header", "Idempotency-Key"],
                                     "this Idempotency-Key was used with a different request body", "idempotency")
            return JSONResponse(status_code=record.status_code, content=record.response)
    target = body.target or Target.model_validate({"arch": settings.default_arch})
    items = tuning.tune_batch(
        session, problems=tuning.key_problems(list(body.problems), target), priority=body.priority,
        max_attempts=settings.max_attempts,
    )
    hits = sum(1 for item in items if item.status == "cached")
    CACHE_LOOKUPS.labels(outcome="hit").inc(hits)
    CACHE_LOOKUPS.labels(outcome="miss").inc(len(items) - hits)
    request.app.state.lookup_counter.count(hit=True, n=hits)
    request.app.state.lookup_counter.count(hit=False, n=len(items) - hits)
    code = status.HTTP_200_OK if all(i.status == "cached" for i in items) else status.HTTP_202_ACCEPTED
    out = TuneResponse(items=items)
    if key is not None:
        session.add(IdempotencyRecord(key=key, request_sha256=digest, status_code=code,
                                      response=out.model_dump(mode="json")))
    response.status_code = code
    return out


@router.post(
    "/lookup",
    response_model=ResultOut,
    responses={404: {"model": NotTuned, "description": "not tuned; says whether a job is tuning it"}, **WITH_BODY},
    summary="The best kernel record for one problem",
)
async def lookup(body: LookupRequest, request: Request, settings: SettingsDep, _auth: SubmitAuth) -> Response:
    """Async with a per-process cache of immutable results: the hot path of every client."""
    target = body.target or Target.model_validate({"arch": settings.default_arch})
    kp = tuning.key_problems([body.problem], target)[0]
    response = await _lookup_one(request, kp)
    if response.status_code == 404 and body.arch_fallback and target.gpu is not None:
        fallback = tuning.key_problems([body.problem], Target(arch=target.arch))[0]
        alt = await _lookup_one(request, fallback)
        if alt.status_code == 200:
            alt.headers["X-Kiln-Fallback"] = "arch"
            return alt
    return response


async def _lookup_one(request: Request, kp: tuning.KeyedProblem) -> Response:
    cache: ResultCache = request.app.state.result_cache
    hit = cache.get(kp.key)
    if hit is None:
        db: Database = request.app.state.db

        def from_db() -> tuple[bytes | None, str | None]:
            with db.read_session() as session:
                outcome = tuning.lookup(session, kp=kp)
                if outcome.result is None:
                    return None, outcome.job_id
                return result_out(outcome.result).model_dump_json().encode(), None

        hit, job_id = await run_in_threadpool(from_db)
        if hit is not None:
            cache.put(kp.key, hit)
    request.app.state.lookup_counter.count(hit=hit is not None)
    if hit is not None:
        CACHE_LOOKUPS.labels(outcome="hit").inc()
        return Response(content=hit, media_type="application/json")
    CACHE_LOOKUPS.labels(outcome="miss").inc()
    tuning_now = job_id is not None
    detail = (f"not tuned yet: job {job_id} is tuning it" if tuning_now else "not tuned: POST /tune to queue it")
    return JSONResponse(status_code=404, content=NotTuned(
        detail=detail, spec_key=kp.key, tuning=tuning_now, job_id=job_id).model_dump())
