"""Settings read from the environment (prefix ``KILN_``).

A cached ``get_settings()`` rather than a module global, so tests and the CLI can build
an application against another database or data directory without monkeypatching imports.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from service.specs.target import ARCHES


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="KILN_", extra="ignore")

    data_dir: Path = Field(default=Path(".kiln"), description="Where the SQLite file, admin token and compile cache live.")
    database_url: str | None = Field(
        default=None,
        description="SQLAlchemy URL. Unset: sqlite:///$KILN_DATA_DIR/kiln.db. PostgreSQL: postgresql+psycopg://user@host/db",
    )
    server_url: str = Field(default="http://127.0.0.1:8765", description="Where clients and workers reach the API.")
    token: str | None = Field(default=None, description="API token clients and workers send; on the server, an extra admin token.")
    host: str = "127.0.0.1"
    port: int = 8765
    default_arch: str = Field(default="sm_90a", description="Target arch when a request names none.")
    lease_seconds: float = Field(default=60.0, gt=0, description="How long a worker's lease lasts without a heartbeat.")
    max_attempts: int = Field(default=3, ge=1, description="Leases a job may take before it fails.")
    retry_backoff_seconds: float = Field(default=5.0, ge=0, description="Base of the exponential backoff after a lost lease.")
    reaper_interval_seconds: float = Field(default=5.0, gt=0)
    max_body_bytes: int = Field(default=1 << 20, description="Largest JSON body accepted (413 beyond).")
    max_kernel_bytes: int = Field(default=64 << 20, description="Largest cubin upload accepted (413 beyond).")
    max_batch: int = Field(default=256, ge=1, description="Most problems in one POST /tune.")
    local_worker: str = Field(default="auto", description="auto: start a worker with `kiln serve` when a GPU is visible; never: don't.")

    @field_validator("default_arch")
    @classmethod
    def _known_arch(cls, value: str) -> str:
        if value not in ARCHES:
            raise ValueError(f"KILN_DEFAULT_ARCH must be one of {sorted(ARCHES)}")
        return value

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'kiln.db').resolve()}"

    @property
    def admin_token_path(self) -> Path:
        return self.data_dir / "admin.token"


@lru_cache
def get_settings() -> Settings:
    return Settings()
