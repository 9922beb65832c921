"""A small synchronous client for the Kiln API (what the CLI and CI jobs use)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import httpx

from service.settings import Settings


class KilnHTTPError(Exception):
    def __init__(self, status: int, detail: Any) -> None:
        super().__init__(f"HTTP {status}: {detail}")
        self.status = status
        self.detail = detail


class IntegrityError(Exception):
    """A downloaded kernel does not match its sha256."""


def default_token(settings: Settings) -> str | None:
    """KILN_TOKEN, else the admin token a local `kiln serve` wrote (same user, same data dir)."""
    if settings.token:
        return settings.token
    try:
        return settings.admin_token_path.read_text().strip() or None
    except OSError:
        return None


class KilnClient:
    def __init__(self, base_url: str, token: str | None, timeout: float = 30.0) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.Client(base_url=base_url, headers=headers, timeout=timeout)

    @classmethod
    def from_settings(cls, settings: Settings) -> KilnClient:
        return cls(settings.server_url, default_token(settings))

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> KilnClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _json(self, resp: httpx.Response, ok: tuple[int, ...] = (200, 201, 202)) -> Any:
        if resp.status_code not in ok:
            try:
                detail = resp.json().get("detail")
            except ValueError:
                detail = resp.text
            raise KilnHTTPError(resp.status_code, detail)
        return resp.json()

    def tune(self, problems: list[dict[str, Any]], target: dict[str, Any] | None = None,
             idempotency_key: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"problems": problems}
        if target:
            body["target"] = target
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        return self._json(self.http.post("/tune", json=body, headers=headers))

    def job(self, job_id: str) -> dict[str, Any]:
        return self._json(self.http.get(f"/jobs/{job_id}"))

    def jobs(self, state: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
        params: dict[str, Any] = {"limit": limit}
        if state:
            params["state"] = state
        return self._json(self.http.get("/jobs", params=params))

    def workers(self) -> list[dict[str, Any]]:
        return self._json(self.http.get("/workers"))

    def lookup(self, problem: dict[str, Any], target: dict[str, Any] | None = None) -> dict[str, Any] | None:
        body: dict[str, Any] = {"problem": problem}
        if target:
            body["target"] = target
        resp = self.http.post("/lookup", json=body)
        if resp.status_code == 404 and "spec_key" in resp.json():
            return None
        return self._json(resp)

    def meta(self, sha256: str) -> dict[str, Any]:
        return self._json(self.http.get(f"/kernel/{sha256}/meta"))

    def fetch(self, sha256: str, dest: Path | None = None) -> bytes:
        resp = self.http.get(f"/kernel/{sha256}")
        if resp.status_code != 200:
            self._json(resp)
        data = resp.content
        if hashlib.sha256(data).hexdigest() != sha256:
            raise IntegrityError(f"kernel {sha256}: downloaded bytes hash to something else")
        if dest is not None:
            dest.parent.mkdir(parents=True, exist_ok=True)
            tmp = dest.with_suffix(dest.suffix + ".part")
            tmp.write_bytes(data)
            tmp.replace(dest)
        return data
