"""Hourly cache hit/miss counts: counted in memory on the hot path, flushed by the reaper thread.

Counting in memory keeps lookups free of writes; each flush adds its deltas with an upsert, so
several API replicas sum into the same hourly rows.
"""

from __future__ import annotations

import threading
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from service.db.models import CacheStats, utcnow


class LookupCounter:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: dict[datetime, list[int]] = {}

    def count(self, *, hit: bool, n: int = 1) -> None:
        hour = utcnow().replace(minute=0, second=0, microsecond=0)
        with self._lock:
            slot = self._pending.setdefault(hour, [0, 0])
            slot[0 if hit else 1] += n

    def flush(self, session: Session) -> int:
        with self._lock:
            pending, self._pending = self._pending, {}
        dialect = session.get_bind().dialect.name
        insert = pg_insert if dialect == "postgresql" else sqlite_insert
        for hour, (hits, misses) in pending.items():
            stmt = insert(CacheStats).values(hour=hour, hits=hits, misses=misses)
            stmt = stmt.on_conflict_do_update(index_elements=["hour"], set_={
                "hits": CacheStats.hits + stmt.excluded.hits, "misses": CacheStats.misses + stmt.excluded.misses})
            session.execute(stmt)
        return len(pending)


def hourly(session: Session, *, hours: int = 24) -> list[tuple[datetime, int, int]]:
    since = utcnow().replace(minute=0, second=0, microsecond=0) - timedelta(hours=hours - 1)
    rows = {r.hour: r for r in session.scalars(select(CacheStats).where(CacheStats.hour >= since))}
    out = []
    for i in range(hours):
        h = since + timedelta(hours=i)
        r = rows.get(h)
        out.append((h, r.hits if r else 0, r.misses if r else 0))
    return out
