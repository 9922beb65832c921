"""The HTTP face of Kiln's errors: one JSON shape per status, and the OpenAPI entries that say which
statuses each route answers, so generated clients (and schemathesis) know every response they can get.

A 422 always has FastAPI's validation shape (`detail` is a list of {loc, msg, type}), whether pydantic
or Kiln's own checks refused the request: one parser on the client, and the offending field named.
Every other error is `{"detail": "<message>"}`."""

from __future__ import annotations

import re
from typing import Any

from fastapi.responses import JSONResponse
from pydantic import BaseModel

from service.db.errors import KilnError


class ErrorOut(BaseModel):
    detail: str


def unprocessable(loc: tuple[str | int, ...] | list[str | int], msg: str, kind: str) -> JSONResponse:
    """A 422 in FastAPI's validation shape, for what Kiln refuses beyond pydantic's checks."""
    return JSONResponse(status_code=422, content={"detail": [{"loc": list(loc), "msg": msg, "type": kind}]})


def error_response(exc: KilnError) -> JSONResponse:
    if exc.status_code == 422:
        kind = re.sub(r"(?<!^)(?=[A-Z])", "_", type(exc).__name__).lower()
        return unprocessable(exc.loc, exc.detail, f"kiln.{kind}")
    return JSONResponse(status_code=exc.status_code, content={"detail": exc.detail})


def raises(*errors: type[KilnError]) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` for the Kiln errors a route can raise, one entry per status, described by
    the errors' own docstrings (the messages a client sees). 422s keep FastAPI's validation schema."""
    by_status: dict[int, list[str]] = {}
    for error in errors:
        by_status.setdefault(error.status_code, []).append((error.__doc__ or error.__name__).strip())
    return {status: {"description": " / ".join(docs), **({} if status == 422 else {"model": ErrorOut})}
            for status, docs in sorted(by_status.items())}


def _plain(description: str) -> dict[str, Any]:
    return {"description": description, "model": ErrorOut}


# What any route behind a bearer token can answer besides its own errors.
AUTHENTICATED: dict[int | str, dict[str, Any]] = {
    401: _plain("missing, unknown or revoked bearer token"),
    403: _plain("the token lacks the scope this route needs"),
    503: _plain("database unavailable, retry later (Retry-After)"),
}
# What a route that reads a request body can answer before its handler runs.
WITH_BODY: dict[int | str, dict[str, Any]] = {
    400: _plain("the body could not be parsed"),
    413: _plain("request body larger than the service's limit (KILN_MAX_BODY_BYTES)"),
}
