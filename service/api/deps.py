"""FastAPI dependencies as Annotated aliases: settings, sessions, the caller's token scopes."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Header, HTTPException, Request, status
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from service import auth
from service.auth import Scope
from service.db.engine import Database
from service.settings import Settings


def get_app_settings(request: Request) -> Settings:
    return request.app.state.settings


def get_database(request: Request) -> Database:
    return request.app.state.db


def get_write_session(db: Annotated[Database, Depends(get_database)]) -> Iterator[Session]:
    """One transaction per request: committed when the endpoint returns, rolled back if it raises."""
    session = db.write_session()
    try:
        with session.begin():
            yield session
    finally:
        session.close()


def get_read_session(db: Annotated[Database, Depends(get_database)]) -> Iterator[Session]:
    session = db.read_session()
    try:
        yield session
    finally:
        session.close()


SettingsDep = Annotated[Settings, Depends(get_app_settings)]
DatabaseDep = Annotated[Database, Depends(get_database)]
# scope="function": the transaction commits when the endpoint returns, *before* the response is
# sent. With the default (after the response) a client could read its 202 and ask for the job
# before it was committed (a 404), and a worker could use a lease whose grant had not landed.
SessionDep = Annotated[Session, Depends(get_write_session, scope="function")]
ReadSessionDep = Annotated[Session, Depends(get_read_session, scope="function")]


class TokenCache:
    """Resolved tokens for a few seconds, so cached lookups don't pay a query for auth each time.

    Short TTL: a revoked token stops working within `ttl` seconds on every API host.
    """

    def __init__(self, ttl: float = 10.0) -> None:
        self.ttl = ttl
        self._entries: dict[str, tuple[float, set[Scope]]] = {}

    def get(self, token: str) -> set[Scope] | None:
        hit = self._entries.get(token)
        if hit is None or hit[0] < time.monotonic():
            return None
        return hit[1]

    def put(self, token: str, scopes: set[Scope]) -> None:
        if len(self._entries) > 10_000:
            self._entries.clear()
        self._entries[token] = (time.monotonic() + self.ttl, scopes)


def _bearer(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, value = authorization.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


async def _granted_scopes(request: Request, db: Database, authorization: str | None) -> set[Scope]:
    """Async so a cached token costs no threadpool hop; the database is asked only on a cache miss."""
    token = _bearer(authorization)
    if token is None:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "missing bearer token (Authorization: Bearer …)",
                            headers={"WWW-Authenticate": "Bearer"})
    cache: TokenCache = request.app.state.token_cache
    granted = cache.get(token)
    if granted is None:
        def resolve() -> set[Scope] | None:
            with db.read_session() as session:
                row = auth.resolve(session, token)
                return None if row is None else auth.scopes_of(row)

        granted = await run_in_threadpool(resolve)
        if granted is None:
            raise HTTPException(status.HTTP_401_UNAUTHORIZED, "unknown or revoked token",
                                headers={"WWW-Authenticate": "Bearer"})
        cache.put(token, granted)
    return granted


def require(*scopes: Scope):  # type: ignore[no-untyped-def]
    """Dependency factory: the bearer token must grant one of `scopes` (admin grants all)."""

    async def check(request: Request, db: DatabaseDep, authorization: Annotated[str | None, Header()] = None) -> set[Scope]:
        granted = await _granted_scopes(request, db, authorization)
        if not any(auth.allows(granted, s) for s in scopes):
            names = "' or '".join(s.value for s in scopes)
            raise HTTPException(status.HTTP_403_FORBIDDEN, f"this token lacks the '{names}' scope")
        return granted

    return check


SubmitAuth = Annotated[set[Scope], Depends(require(Scope.submit))]
WorkerAuth = Annotated[set[Scope], Depends(require(Scope.worker))]
AdminAuth = Annotated[set[Scope], Depends(require(Scope.admin))]
ReaderAuth = Annotated[set[Scope], Depends(require(Scope.submit, Scope.worker))]  # kernels: clients and workers


def idempotency_key(idempotency_key: Annotated[str | None, Header(max_length=128)] = None) -> str | None:
    return idempotency_key
