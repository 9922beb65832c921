"""Tuning results: insert-once by spec key, looked up by key, listed as history."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from service.db.models import Candidate, TuningResult


def get_result(session: Session, *, spec_key: str, with_candidates: bool = False) -> TuningResult | None:
    stmt = select(TuningResult).where(TuningResult.spec_key == spec_key)
    if with_candidates:
        stmt = stmt.options(selectinload(TuningResult.candidates))
    return session.scalars(stmt).first()


def get_results(session: Session, *, spec_keys: list[str]) -> dict[str, TuningResult]:
    if not spec_keys:
        return {}
    rows = session.scalars(select(TuningResult).where(TuningResult.spec_key.in_(spec_keys))).all()
    return {r.spec_key: r for r in rows}


def insert_once(session: Session, *, values: dict[str, Any], candidates: list[dict[str, Any]]) -> tuple[TuningResult, bool]:
    """Store the winner unless one is already stored for this key (then keep the first)."""
    existing = get_result(session, spec_key=values["spec_key"])
    if existing is not None:
        return existing, False
    row = TuningResult(**values)
    row.candidates = [Candidate(**c) for c in candidates]
    try:
        with session.begin_nested():
            session.add(row)
            session.flush()
    except IntegrityError:
        existing = get_result(session, spec_key=values["spec_key"])
        if existing is None:
            raise
        return existing, False
    return row, True


@dataclass(frozen=True)
class HistoryFilter:
    op: str | None = None
    arch: str | None = None
    dtype: str | None = None
    epilogue: str | None = None
    gpu: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    min_speedup: float | None = None
    max_speedup: float | None = None


SORTABLE: dict[str, Any] = {
    "created_at": TuningResult.created_at,
    "speedup": TuningResult.speedup,
    "tflops": TuningResult.tflops,
    "kernel_time_us": TuningResult.kernel_time_us,
    "tuning_seconds": TuningResult.tuning_seconds,
}


def list_results(
    session: Session, *, filters: HistoryFilter, sort: str = "created_at", descending: bool = True,
    offset: int = 0, limit: int = 50,
) -> tuple[list[TuningResult], int]:
    stmt = select(TuningResult)
    filter_column: Any
    for filter_column, value in (
        (TuningResult.op, filters.op), (TuningResult.arch, filters.arch), (TuningResult.dtype, filters.dtype),
        (TuningResult.epilogue, filters.epilogue), (TuningResult.measured_gpu, filters.gpu),
    ):
        if value is not None:
            stmt = stmt.where(filter_column == value)
    if filters.since is not None:
        stmt = stmt.where(TuningResult.created_at >= filters.since)
    if filters.until is not None:
        stmt = stmt.where(TuningResult.created_at < filters.until)
    if filters.min_speedup is not None:
        stmt = stmt.where(TuningResult.speedup >= filters.min_speedup)
    if filters.max_speedup is not None:
        stmt = stmt.where(TuningResult.speedup <= filters.max_speedup)
    total = session.scalar(select(func.count()).select_from(stmt.subquery())) or 0
    column = SORTABLE[sort]
    order = column.desc().nulls_last() if descending else column.asc().nulls_last()
    rows = session.scalars(stmt.order_by(order, TuningResult.id.desc()).offset(offset).limit(limit)).all()
    return list(rows), total
