"""The decode floor's read kernel compiles with NVRTC at every unroll the bench launches (on the
CPU; the bench verifies what it read against torch on the GPU before timing it)."""

from __future__ import annotations

from bench.stream_floor import GRIDS, PARTIAL_GRIDS, _compile


def test_read_kernel_compiles_at_every_unroll() -> None:
    for unroll in sorted({u for _, _, u in GRIDS + PARTIAL_GRIDS}):
        cubin = _compile(unroll)
        assert b"stream_read" in cubin


def test_grids_fit_an_sm() -> None:
    assert all(blocks * threads <= 2048 and threads <= 1024 for blocks, threads, _ in GRIDS)
