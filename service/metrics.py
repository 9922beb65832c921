"""Prometheus metrics: in-process counters plus gauges read from the database at scrape time."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import func, select
from sqlalchemy.exc import SQLAlchemyError

from service.db.engine import Database
from service.db.models import Job, JobState, KernelBlob, TuningResult, Worker, utcnow

REGISTRY = CollectorRegistry()

CACHE_LOOKUPS = Counter("kiln_cache_lookups_total", "Spec lookups by outcome", ["outcome"], registry=REGISTRY)
JOBS_FINISHED = Counter("kiln_jobs_finished_total", "Jobs that reached a final state", ["state"], registry=REGISTRY)
HTTP_LATENCY = Histogram(
    "kiln_http_request_seconds", "HTTP request latency", ["route", "method"], registry=REGISTRY,
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
)
COMPILE_SECONDS = Histogram(
    "kiln_compile_seconds", "NVRTC compile time per variant (reported by workers)", ["family"], registry=REGISTRY,
    buckets=(0.05, 1, 2, 4, 8, 15, 30, 60, 120),
)


class DatabaseCollector(Collector):
    """Queue depth and cache size straight from SQL, so every API replica reports the same numbers."""

    def __init__(self, db_getter: Callable[[], Database | None], lease_seconds: float) -> None:
        self._db_getter = db_getter
        self._lease_seconds = lease_seconds

    def describe(self) -> list[GaugeMetricFamily]:
        return []  # no database query at registration time

    def collect(self) -> Iterator[GaugeMetricFamily]:
        db = self._db_getter()
        if db is None:
            return
        try:
            yield from self._collect(db)
        except SQLAlchemyError:
            return  # a scrape during a database outage shows the in-process counters only

    def _collect(self, db: Database) -> Iterator[GaugeMetricFamily]:
        with db.read_session() as s:
            jobs = GaugeMetricFamily("kiln_jobs", "Jobs by state", labels=["state"])
            counts = dict(s.execute(select(Job.state, func.count()).group_by(Job.state)).all())
            for state in JobState:
                jobs.add_metric([state.value], counts.get(state, 0))
            yield jobs
            oldest = s.scalar(select(func.min(Job.created_at)).where(Job.state == JobState.queued))
            age = GaugeMetricFamily("kiln_queue_oldest_age_seconds", "Age of the oldest queued job")
            age.add_metric([], (utcnow() - oldest).total_seconds() if oldest else 0.0)
            yield age
            cutoff_s = 2 * self._lease_seconds
            workers = s.scalars(select(Worker.last_heartbeat_at).where(Worker.stopped.is_(False))).all()
            online = GaugeMetricFamily("kiln_workers_online", "Workers heard from recently")
            online.add_metric([], sum(1 for t in workers if (utcnow() - t).total_seconds() < cutoff_s))
            yield online
            kernels = GaugeMetricFamily("kiln_kernels", "Cubins stored")
            kernels.add_metric([], s.scalar(select(func.count()).select_from(KernelBlob)) or 0)
            yield kernels
            res = GaugeMetricFamily("kiln_results", "Tuned specs in the cache")
            res.add_metric([], s.scalar(select(func.count()).select_from(TuningResult)) or 0)
            yield res
