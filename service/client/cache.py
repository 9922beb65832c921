"""On-disk cache of fetched kernels, keyed by the cubin's sha256 (its content address).

A kernel is immutable, so a cached one never needs revalidation; every read re-hashes the bytes
and a mismatch (disk corruption, a truncated write, tampering) is reported and the entry dropped,
so the caller fetches it again. Specs resolved to kernels are remembered too, so a filled cache
answers `lookup` for known problems without the service.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any


class CorruptedKernel(Exception):
    """A cached cubin does not hash to its name; it was removed and must be fetched again."""


def default_cache_dir() -> Path:
    base = os.environ.get("KILN_CLIENT_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME", str(Path.home() / ".cache")), "kiln")
    return Path(base)


class KernelCache:
    def __init__(self, root: Path | None = None) -> None:
        self.root = root or default_cache_dir()

    def _kernel(self, sha256: str) -> Path:
        return self.root / "kernels" / sha256[:2] / f"{sha256}.cubin"

    def _meta(self, sha256: str) -> Path:
        return self.root / "kernels" / sha256[:2] / f"{sha256}.json"

    def _spec(self, spec_key: str) -> Path:
        return self.root / "specs" / spec_key[:2] / f"{spec_key}.json"

    def get_cubin(self, sha256: str) -> bytes | None:
        path = self._kernel(sha256)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        if hashlib.sha256(data).hexdigest() != sha256:
            path.unlink(missing_ok=True)
            raise CorruptedKernel(f"cached kernel {sha256} was corrupted; removed it")
        return data

    def put_cubin(self, sha256: str, data: bytes, meta: dict[str, Any] | None = None) -> None:
        if hashlib.sha256(data).hexdigest() != sha256:
            raise CorruptedKernel(f"refusing to cache bytes that do not hash to {sha256}")
        _atomic(self._kernel(sha256), data)
        if meta is not None:
            _atomic(self._meta(sha256), json.dumps(meta).encode())

    def get_meta(self, sha256: str) -> dict[str, Any] | None:
        return _read_json(self._meta(sha256))

    def remember(self, spec_key: str, result: dict[str, Any]) -> None:
        _atomic(self._spec(spec_key), json.dumps(result).encode())

    def recall(self, spec_key: str) -> dict[str, Any] | None:
        return _read_json(self._spec(spec_key))


def _read_json(path: Path) -> dict[str, Any] | None:
    """Absent or unreadable (a torn write) both mean: not cached."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
