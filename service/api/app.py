"""The FastAPI application: routers, error mapping, limits, and the lease reaper."""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import DataError, OperationalError

from service.admin import routes as admin_routes
from service.api.deps import TokenCache
from service.api.errors import AUTHENTICATED, error_response, unprocessable
from service.api.middleware import BodyLimitMiddleware, TimingMiddleware
from service.api.result_cache import ResultCache
from service.api.routes import health, jobs, kernels, results, tune, workers
from service.db import queue
from service.db.cache_stats import LookupCounter
from service.db.engine import Database, open_database
from service.db.errors import KilnError
from service.db.retry import RetryPolicy
from service.metrics import REGISTRY, DatabaseCollector
from service.settings import Settings, get_settings

log = logging.getLogger("kiln.service")
ADMIN_STATIC = Path(admin_routes.__file__).resolve().parent / "static"


class Reaper:
    """Puts jobs whose lease expired back in the queue. Safe to run on every API replica."""

    def __init__(self, db: Database, settings: Settings, counter: LookupCounter) -> None:
        self.db = db
        self.settings = settings
        self.counter = counter  # hourly cache hit/miss counts ride along with each sweep
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="kiln-reaper", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def sweep(self) -> int:
        with self.db.transaction() as session:
            self.counter.flush(session)
            return queue.requeue_expired(session, policy=RetryPolicy(base_seconds=self.settings.retry_backoff_seconds))

    def _run(self) -> None:
        while not self._stop.wait(self.settings.reaper_interval_seconds):
            try:
                n = self.sweep()
                if n:
                    log.warning("requeued %d job(s) whose lease expired", n)
            except Exception:  # keep reaping through transient database errors
                log.exception("reaper sweep failed")


def create_app(settings: Settings | None = None, db: Database | None = None) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        reaper = Reaper(app.state.db, settings, app.state.lookup_counter)
        reaper.start()
        app.state.reaper = reaper
        try:
            yield
        finally:
            reaper.stop()
            if owns_db:
                app.state.db.dispose()

    owns_db = db is None
    app = FastAPI(
        title="Kiln",
        version="0.1.0",
        summary="Autotuning service with a persistent kernel cache for NVIDIA GPUs",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.db = db or open_database(settings.resolved_database_url)
    app.state.token_cache = TokenCache()
    app.state.result_cache = ResultCache()
    app.state.lookup_counter = LookupCounter()

    for router in (tune.router, jobs.router, kernels.router, workers.router, results.router):
        app.include_router(router, responses=AUTHENTICATED)
    app.include_router(health.router)
    app.include_router(admin_routes.router)
    app.mount("/admin/static", StaticFiles(directory=str(ADMIN_STATIC)), name="admin-static")

    @app.exception_handler(admin_routes.NotSignedIn)
    async def _not_signed_in(request: Request, _exc: Exception) -> Response:
        if request.method == "GET" and "hx-request" not in request.headers:
            return RedirectResponse("/admin/login", status_code=303)
        return JSONResponse(status_code=401, content={"detail": "admin sign-in required"})

    @app.exception_handler(KilnError)
    async def _kiln_error(_request: Request, exc: KilnError) -> JSONResponse:
        return error_response(exc)

    @app.exception_handler(DataError)
    async def _unstorable(_request: Request, exc: DataError) -> JSONResponse:
        # What validation let through and the database refuses (a NUL in a path or query value on
        # PostgreSQL, an integer past 64 bits): the client's value, so a 422, never a 500.
        log.info("database refused a value: %s", exc.orig)
        return unprocessable(["request"], "a value the database cannot store (a NUL character or an out-of-range number)",
                             "kiln.unstorable_value")

    @app.exception_handler(OperationalError)
    async def _db_down(_request: Request, exc: OperationalError) -> JSONResponse:
        log.error("database error: %s", exc)
        return JSONResponse(status_code=503, content={"detail": "database unavailable, retry later"},
                            headers={"Retry-After": "2"})

    app.add_middleware(BodyLimitMiddleware, max_body=settings.max_body_bytes, max_kernel=settings.max_kernel_bytes)
    app.add_middleware(TimingMiddleware)
    _register_collector(app, settings)
    return app


_collector_db: dict[str, Database | None] = {"db": None}


def _register_collector(app: FastAPI, settings: Settings) -> None:
    """One database collector per process; it reads from the most recently created app's database."""
    first = _collector_db["db"] is None
    _collector_db["db"] = app.state.db
    if first:
        REGISTRY.register(DatabaseCollector(lambda: _collector_db["db"], settings.lease_seconds))
