"""ASGI middleware: body-size limits (413 before a large body is read) and request timing."""

from __future__ import annotations

import json
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.metrics import HTTP_LATENCY


class BodyTooLarge(Exception):
    pass


class BodyLimitMiddleware:
    """Refuse bodies over the limit, by Content-Length when declared and by counting otherwise.

    Cubin uploads (PUT /kernel/…) get their own, larger limit.
    """

    def __init__(self, app: ASGIApp, *, max_body: int, max_kernel: int) -> None:
        self.app = app
        self.max_body = max_body
        self.max_kernel = max_kernel

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_kernel if scope["method"] == "PUT" and scope["path"].startswith("/kernel/") else self.max_body
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await _too_large(send, limit)
            return
        seen = 0

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge()
            return message

        try:
            await self.app(scope, limited_receive, send)
        except BodyTooLarge:
            await _too_large(send, limit)


async def _too_large(send: Send, limit: int) -> None:
    body = json.dumps({"detail": f"request body larger than {limit} bytes"}).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class TimingMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        try:
            await self.app(scope, receive, send)
        finally:
            route: Any = scope.get("route")
            path = getattr(route, "path", "unmatched")
            HTTP_LATENCY.labels(route=path, method=scope["method"]).observe(time.perf_counter() - start)
