"""What the sync and async clients share: request bodies, response checks, local spec keys."""

from __future__ import annotations

import hashlib
from typing import Any

import httpx
from pydantic import TypeAdapter

from service.client.cache import CorruptedKernel, KernelCache
from service.settings import Settings
from service.specs import Problem, Target, spec_key

FINAL = ("succeeded", "failed", "cancelled")


class KilnHTTPError(Exception):
    def __init__(self, status: int, detail: Any) -> None:
        super().__init__(f"HTTP {status}: {detail}")
        self.status = status
        self.detail = detail


class IntegrityError(Exception):
    """A downloaded kernel does not match its sha256."""


class TuneTimeout(Exception):
    """The jobs did not finish within the timeout; they keep running on the service."""


def default_token(settings: Settings) -> str | None:
    """KILN_TOKEN, else the admin token a local `kiln serve` wrote (same user, same data dir)."""
    if settings.token:
        return settings.token
    try:
        return settings.admin_token_path.read_text().strip() or None
    except OSError:
        return None


def headers(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def tune_body(problems: list[dict[str, Any]], target: dict[str, Any] | None) -> dict[str, Any]:
    body: dict[str, Any] = {"problems": problems}
    if target:
        body["target"] = target
    return body


def lookup_body(problem: dict[str, Any], target: dict[str, Any] | None) -> dict[str, Any]:
    body: dict[str, Any] = {"problem": problem}
    if target:
        body["target"] = target
    return body


def error_detail(resp: httpx.Response) -> Any:
    """The service's reason for an error response: its `detail`, or the raw text of a non-JSON one."""
    try:
        return resp.json().get("detail", resp.text)
    except (ValueError, AttributeError):
        return resp.text


def checked(resp: httpx.Response, ok: tuple[int, ...] = (200, 201, 202)) -> Any:
    if resp.status_code not in ok:
        raise KilnHTTPError(resp.status_code, error_detail(resp))
    return resp.json()


def verified(sha256: str, data: bytes) -> bytes:
    if hashlib.sha256(data).hexdigest() != sha256:
        raise IntegrityError(f"kernel {sha256}: downloaded bytes hash to something else")
    return data


def local_key(problem: dict[str, Any], target: dict[str, Any] | None, default_arch: str) -> str:
    """The spec key the service would compute, so a filled cache answers without the service."""
    p = TypeAdapter(Problem).validate_python(problem)
    return spec_key(p, Target.model_validate(target or {"arch": default_arch}))


def lookup_result(resp: httpx.Response, cache: KernelCache) -> dict[str, Any] | None:
    """A /lookup answer: None when not tuned, else the record (remembered for offline use)."""
    if resp.status_code == 404 and "spec_key" in resp.json():
        return None
    result = checked(resp)
    cache.remember(result["spec_key"], result)
    return result


def cached_cubin(cache: KernelCache, sha256: str) -> bytes | None:
    """The cached cubin, or None when absent or found corrupted (then it has been dropped)."""
    try:
        return cache.get_cubin(sha256)
    except CorruptedKernel:
        return None
