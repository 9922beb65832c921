"""The load benchmark runs end to end (short); the real figures come from `make bench-load`."""

from __future__ import annotations

import pytest

from bench.load import run

pytestmark = pytest.mark.slow


def test_load_benchmark_smoke() -> None:
    stats = run("sqlite", seconds=2, concurrency=8)
    assert stats["errors"] == 0 and stats["lookup"]["requests"] > 0 and stats["kernel"]["requests"] > 0
