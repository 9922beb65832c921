"""Liveness, readiness (database reachable and migrated) and Prometheus metrics."""

from __future__ import annotations

from fastapi import APIRouter, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from service.api.deps import DatabaseDep
from service.db.migrate import current_heads, head_revisions
from service.metrics import REGISTRY

router = APIRouter(tags=["health"])


@router.get("/healthz", summary="The process is up")
def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz", summary="The database answers and carries the latest migration")
def readyz(db: DatabaseDep) -> JSONResponse:
    try:
        heads = current_heads(db.reader)
    except Exception as exc:  # any driver error means "not ready", never a 500
        return JSONResponse(status_code=503, content={"status": "unavailable", "error": type(exc).__name__})
    expected = head_revisions()
    if heads != set(expected):
        return JSONResponse(status_code=503, content={"status": "migrations pending", "at": sorted(heads),
                                                      "expected": sorted(expected)})
    return JSONResponse(content={"status": "ready", "database": db.dialect, "migration": sorted(heads)})


@router.get("/metrics", summary="Prometheus metrics", response_class=Response)
def metrics() -> Response:
    return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE_LATEST)
