"""The Alembic migrations build exactly the schema the models describe, on both backends."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine

from service.db.migrate import current_heads, head_revisions
from service.db.models import Base


def test_migrated_schema_matches_models(db_url: str) -> None:
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
        assert diff == [], diff
        assert current_heads(engine) == set(head_revisions())
    finally:
        engine.dispose()
