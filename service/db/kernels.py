"""Content-addressed cubin storage: sha256 in, bytes out, verified on every read."""

from __future__ import annotations

import hashlib
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from service.db.errors import KilnError
from service.db.models import Kernel, KernelBlob


class KernelCorrupted(KilnError):
    """The stored cubin does not match its sha256: it is corrupted and will not be served."""

    status_code = 500


class KernelNotFound(KilnError):
    """No kernel with this sha256."""

    status_code = 404


class DigestMismatch(KilnError):
    """The uploaded bytes do not hash to the sha256 in the URL."""

    status_code = 422


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _insert_ignore(session: Session, model: type, values: dict[str, Any], key: str) -> None:
    """INSERT … ON CONFLICT DO NOTHING: content-addressed rows are identical by construction."""
    dialect = session.get_bind().dialect.name
    insert = pg_insert if dialect == "postgresql" else sqlite_insert
    session.execute(insert(model).values(**values).on_conflict_do_nothing(index_elements=[key]))


def put_blob(session: Session, *, sha256: str, data: bytes) -> bool:
    """Store bytes under their digest. Returns True if they were new."""
    if sha256_hex(data) != sha256:
        raise DigestMismatch()
    exists = session.scalar(select(KernelBlob.sha256).where(KernelBlob.sha256 == sha256))
    if exists:
        return False
    _insert_ignore(session, KernelBlob, {"sha256": sha256, "size": len(data), "data": data}, "sha256")
    return True


def blob_exists(session: Session, *, sha256: str) -> bool:
    return session.scalar(select(KernelBlob.sha256).where(KernelBlob.sha256 == sha256)) is not None


def read_blob(session: Session, *, sha256: str) -> bytes:
    data = session.scalar(select(KernelBlob.data).where(KernelBlob.sha256 == sha256))
    if data is None:
        raise KernelNotFound()
    data = bytes(data)
    if sha256_hex(data) != sha256:
        raise KernelCorrupted(f"kernel {sha256} failed its sha256 check: stored bytes are corrupted")
    return data


def put_kernel(session: Session, *, meta: dict[str, Any]) -> None:
    _insert_ignore(session, Kernel, meta, "sha256")


def get_kernel(session: Session, *, sha256: str) -> Kernel:
    kernel = session.get(Kernel, sha256)
    if kernel is None:
        raise KernelNotFound()
    return kernel
