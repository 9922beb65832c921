"""Tuning history, paged and filterable."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query

from service.api.deps import ReadSessionDep, SubmitAuth
from service.api.errors import raises
from service.api.schemas import MAX_OFFSET, Page, ResultOut, naive_utc
from service.api.views import result_out
from service.db import results
from service.db.errors import ResultNotFound
from service.specs.epilogues import Epilogue
from service.specs.gemm import DType

router = APIRouter(tags=["results"])


@router.get("/results", response_model=Page, summary="Tuning history")
def list_results(
    session: ReadSessionDep, _auth: SubmitAuth,
    op: Literal["gemm", "conv2d"] | None = None,
    arch: Annotated[str | None, Query(max_length=16)] = None,
    dtype: DType | None = None,
    epilogue: Epilogue | None = None,
    gpu: Annotated[str | None, Query(max_length=64)] = None,
    since: datetime | None = None,
    until: datetime | None = None,
    min_speedup: float | None = None,
    max_speedup: float | None = None,
    sort: Literal["created_at", "speedup", "tflops", "kernel_time_us", "tuning_seconds"] = "created_at",
    order: Literal["asc", "desc"] = "desc",
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> Page:
    filters = results.HistoryFilter(
        op=op, arch=arch, dtype=dtype.value if dtype else None, epilogue=epilogue.value if epilogue else None,
        gpu=gpu, since=naive_utc(since), until=naive_utc(until),
        min_speedup=min_speedup, max_speedup=max_speedup,
    )
    rows, total = results.list_results(session, filters=filters, sort=sort, descending=order == "desc",
                                       offset=offset, limit=limit)
    return Page(total=total, offset=offset, limit=limit, items=[result_out(r) for r in rows])


@router.get("/results/{spec_key}", response_model=ResultOut, responses=raises(ResultNotFound), summary="One tuning result by spec key")
def get_result(spec_key: Annotated[str, Path(pattern=r"^[0-9a-f]{64}$")], session: ReadSessionDep, _auth: SubmitAuth) -> ResultOut:
    row = results.get_result(session, spec_key=spec_key)
    if row is None:
        raise ResultNotFound()
    return result_out(row)
