"""Engines and sessions for SQLite (embedded) and PostgreSQL (multi-host).

SQLite has one writer: write transactions start with BEGIN IMMEDIATE so two claims can never
both read the same queued row and then race to upgrade their locks (the classic SQLITE_BUSY
deadlock). Reads use a second engine with plain deferred transactions so lookups and cubin
downloads run concurrently under WAL.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def _sqlite_engine(url: str, *, immediate: bool) -> Engine:
    database = make_url(url).database
    if database and database != ":memory:":
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30}, pool_size=16, max_overflow=16)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):  # type: ignore[no-untyped-def]
        dbapi_connection.isolation_level = None  # let us emit BEGIN ourselves
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn):  # type: ignore[no-untyped-def]
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


@dataclass
class Database:
    """A write engine and a read engine (the same one on PostgreSQL)."""

    url: str
    writer: Engine
    reader: Engine

    @property
    def dialect(self) -> str:
        return self.writer.dialect.name

    def write_session(self) -> Session:
        return sessionmaker(self.writer, expire_on_commit=False)()

    def read_session(self) -> Session:
        return sessionmaker(self.reader, expire_on_commit=False)()

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """One write transaction: commit on success, roll back on any exception."""
        session = self.write_session()
        try:
            with session.begin():
                yield session
        finally:
            session.close()

    def dispose(self) -> None:
        self.writer.dispose()
        if self.reader is not self.writer:
            self.reader.dispose()


def open_database(url: str) -> Database:
    if is_sqlite(url):
        return Database(url, _sqlite_engine(url, immediate=True), _sqlite_engine(url, immediate=False))
    engine = create_engine(url, pool_size=20, max_overflow=20, pool_pre_ping=True)
    return Database(url, engine, engine)
