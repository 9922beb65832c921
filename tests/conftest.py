"""Shared fixtures: a migrated database on SQLite and on PostgreSQL, an app, tokens, GPU skipping."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from service import auth
from service.api.app import create_app
from service.auth import Scope
from service.db.engine import Database, open_database
from service.db.migrate import upgrade
from service.db.models import Base
from service.settings import Settings
from tests.nvrtc_batch import NvrtcBatch, compile_tests_last, declared

REPO = Path(__file__).resolve().parents[1]
POSTGRES_ADMIN_URL = os.environ.get("KILN_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
ARTIFACTS = REPO / "test-artifacts"
NVRTC_BATCH = pytest.StashKey[NvrtcBatch]()


def _gpu_visible() -> bool:
    from worker.device import visible_gpus

    return bool(visible_gpus())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    compile_tests_last(items)
    for item in items:  # the first compile test may wait out most of the batch (tests/nvrtc_batch.py)
        if item.get_closest_marker("nvrtc") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(1800))
    if any("gpu" in item.keywords for item in items) and not _gpu_visible():
        skip = pytest.mark.skip(reason="no NVIDIA GPU visible")
        for item in items:
            if "gpu" in item.keywords:
                item.add_marker(skip)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start compiling what the selected compile tests declare while the other tests run."""
    wanted = declared(session.items)
    if wanted and not session.config.option.collectonly:
        session.config.stash[NVRTC_BATCH] = NvrtcBatch(wanted)


def pytest_sessionfinish(session: pytest.Session) -> None:
    batch = session.config.stash.get(NVRTC_BATCH, None)
    if batch is not None:
        batch.remove_cache()


@pytest.fixture(scope="session")
def nvrtc(request: pytest.FixtureRequest) -> NvrtcBatch:
    """Every variant the session's selected tests declare (@pytest.mark.nvrtc), compiled at once."""
    return request.config.stash[NVRTC_BATCH]


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A fresh PostgreSQL database for this test session, migrated, dropped at the end."""
    admin = create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    name = f"kiln_test_{uuid.uuid4().hex[:8]}"
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    except Exception as exc:  # pragma: no cover - CI starts PostgreSQL; locally say how
        pytest.fail(f"PostgreSQL not reachable at {POSTGRES_ADMIN_URL}: {exc}")
    url = make_url(POSTGRES_ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    upgrade(url)
    yield url
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def _truncate(db: Database) -> None:
    names = ", ".join(t.name for t in reversed(Base.metadata.sorted_tables))
    with db.writer.begin() as conn:
        if db.dialect == "postgresql":
            conn.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
        else:
            for table in reversed(Base.metadata.sorted_tables):
                conn.execute(table.delete())


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'kiln.db'}"
        upgrade(url)
        return url
    return request.getfixturevalue("postgres_url")


@pytest.fixture
def db(db_url: str) -> Iterator[Database]:
    database = open_database(db_url)
    _truncate(database)
    yield database
    database.dispose()


@pytest.fixture
def settings(tmp_path: Path, db_url: str) -> Settings:
    return Settings(data_dir=tmp_path / "data", database_url=db_url, lease_seconds=30, retry_backoff_seconds=0,
                    reaper_interval_seconds=3600)


@pytest.fixture
def tokens(db: Database) -> dict[str, str]:
    with db.transaction() as s:
        return {
            "admin": auth.create_token(s, name="admin", scopes={Scope.admin}),
            "submit": auth.create_token(s, name="submit", scopes={Scope.submit}),
            "worker": auth.create_token(s, name="worker", scopes={Scope.worker}),
        }


@pytest.fixture
def app(settings: Settings, db: Database):  # type: ignore[no-untyped-def]
    return create_app(settings, db)


@pytest.fixture
def client(app, tokens: dict[str, str]) -> Iterator[TestClient]:  # type: ignore[no-untyped-def]
    with TestClient(app, headers={"Authorization": f"Bearer {tokens['submit']}"}) as c:
        yield c


@pytest.fixture
def worker_client(app, tokens: dict[str, str]) -> Iterator[TestClient]:  # type: ignore[no-untyped-def]
    with TestClient(app, headers={"Authorization": f"Bearer {tokens['worker']}"}) as c:
        yield c
