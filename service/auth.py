"""API tokens with scopes. Tokens are random, shown once, and stored only as sha256."""

from __future__ import annotations

import hashlib
import os
import secrets
from enum import StrEnum
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from service.db.models import ApiToken, utcnow


class Scope(StrEnum):
    submit = "submit"  # tune, look up, fetch kernels, read jobs and history
    worker = "worker"  # register, lease, heartbeat, upload kernels and results
    admin = "admin"  # everything, including tokens and the dashboard


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create_token(session: Session, *, name: str, scopes: set[Scope], token: str | None = None) -> str:
    token = token or f"kiln_{secrets.token_urlsafe(32)}"
    session.add(ApiToken(name=name, token_sha256=_digest(token), scopes=",".join(sorted(s.value for s in scopes))))
    session.flush()
    return token


def ensure_token(session: Session, *, name: str, scopes: set[Scope], token: str) -> None:
    """Register a token given by configuration (KILN_TOKEN on the server) if it is not known yet."""
    if session.scalar(select(ApiToken.id).where(ApiToken.token_sha256 == _digest(token))) is None:
        create_token(session, name=name, scopes=scopes, token=token)


def resolve(session: Session, token: str) -> ApiToken | None:
    row = session.scalar(select(ApiToken).where(ApiToken.token_sha256 == _digest(token)))
    if row is None or row.revoked_at is not None:
        return None
    return row


def scopes_of(row: ApiToken) -> set[Scope]:
    return {Scope(s) for s in row.scopes.split(",") if s}


def allows(granted: set[Scope], needed: Scope) -> bool:
    return Scope.admin in granted or needed in granted


def revoke(session: Session, *, name: str) -> int:
    rows = session.scalars(select(ApiToken).where(ApiToken.name == name, ApiToken.revoked_at.is_(None))).all()
    for row in rows:
        row.revoked_at = utcnow()
    return len(rows)


def has_admin_token(session: Session) -> bool:
    rows = session.scalars(select(ApiToken).where(ApiToken.revoked_at.is_(None))).all()
    return any(Scope.admin in scopes_of(r) for r in rows)


def write_secret_file(path: Path, secret: str) -> None:
    """Create the file with mode 0600 from the start, so the token is never world-readable."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, (secret + "\n").encode())
    finally:
        os.close(fd)
    os.chmod(path, 0o600)


def bootstrap_admin_token(session: Session, *, path: Path, configured: str | None) -> str | None:
    """First run: mint an admin token and store it at `path`. Returns the path's token if one was made."""
    if configured:
        ensure_token(session, name="configured", scopes={Scope.admin}, token=configured)
    if has_admin_token(session):
        return None
    token = create_token(session, name="bootstrap-admin", scopes={Scope.admin})
    write_secret_file(path, token)
    return token
