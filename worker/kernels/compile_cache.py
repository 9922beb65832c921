"""On-disk compile cache: a variant is compiled once and reused for every shape, job and restart.

Several workers on one host (one per GPU) share the cache directory; a per-key file lock makes
sure a variant is compiled by one of them while the others wait for its cubin.

Key: sha256 over the rendered source, the NVRTC options (include paths left out: they differ per
machine, and what they point at is covered by the CUTLASS version and the overlay digest), the
NVRTC and CUTLASS versions and the arch. Writes are atomic (temp file + rename); reads re-hash the
cubin against the digest stored beside it and treat a mismatch as a miss.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class CachedCubin:
    cubin: bytes
    log: str
    compile_seconds: float
    key: str


def cache_key(source: str, *, arch: str, options: list[str], nvrtc: str, cutlass: str, overlay: str) -> str:
    h = hashlib.sha256()
    stable = [o for o in options if not o.startswith(("-I", "--pch-dir", "-pch"))]  # same cubin either way
    for part in (source, arch, "\0".join(stable), nvrtc, cutlass, overlay):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


class CompileCache:
    def __init__(self, root: Path) -> None:
        self.root = root

    def _paths(self, key: str) -> tuple[Path, Path]:
        d = self.root / key[:2]
        return d / f"{key}.cubin", d / f"{key}.json"

    def get(self, key: str) -> CachedCubin | None:
        cubin_path, meta_path = self._paths(key)
        try:
            meta = json.loads(meta_path.read_text())
            data = cubin_path.read_bytes()
        except (OSError, ValueError):
            return None
        if hashlib.sha256(data).hexdigest() != meta.get("cubin_sha256"):
            return None  # torn or corrupted: compile again
        return CachedCubin(data, meta.get("log", ""), float(meta.get("compile_seconds", 0.0)), key)

    def try_lock(self, key: str) -> int | None:
        """Claim the right to compile `key` on this host (flock, released on close or process death).
        None: another process holds it; its cubin will appear in the cache."""
        path = self.root / "locks" / f"{key}.lock"
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        return fd

    @staticmethod
    def unlock(fd: int) -> None:
        os.close(fd)

    def put(self, key: str, cubin: bytes, *, log: str, compile_seconds: float, extra: dict[str, Any] | None = None) -> None:
        cubin_path, meta_path = self._paths(key)
        cubin_path.parent.mkdir(parents=True, exist_ok=True)
        meta = {"cubin_sha256": hashlib.sha256(cubin).hexdigest(), "log": log, "compile_seconds": compile_seconds,
                **(extra or {})}
        _atomic_write(cubin_path, cubin)
        _atomic_write(meta_path, json.dumps(meta).encode())  # written last: its presence means complete


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
