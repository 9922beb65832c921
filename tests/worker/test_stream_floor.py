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


def test_tile_order_read_compiles_for_every_walk() -> None:
    from bench.tile_order_floor import WALKS, compile_tile_read

    for unroll, per_step in sorted({(w.unroll, w.per_step) for w in WALKS if w.buildable}):
        assert b"tile_read" in compile_tile_read(unroll, per_step)


def test_tile_order_walks_read_every_vector_once() -> None:
    """The kernel's addressing, replayed on the index space of a small W: every geometry the bench
    keeps for a shape covers each 16-byte vector exactly once (the GPU run checks the sum too)."""
    import itertools

    from bench.tile_order_floor import WALKS

    n, k = 256, 8 * 64  # 256 rows of 64 vectors
    kept = [w for w in WALKS if w.fits(n, k)]
    assert {w.rows for w in kept} == {32, 64, 128} and any(w.slices == 4 for w in kept)
    for walk in kept:
        step_vec, kvec_row = walk.step_bytes // 16, k // 8
        per_step, steps = walk.rows * step_vec, kvec_row // step_vec // walk.slices
        seen = []
        for cta, t in itertools.product(range(n // walk.rows * walk.slices), range(walk.threads)):
            rb, sl = cta % (n // walk.rows), cta // (n // walk.rows)
            stride = per_step if walk.blocked else step_vec
            base = rb * walk.rows * kvec_row + sl * steps * stride
            for s, q in itertools.product(range(steps), range(walk.per_step)):
                j = t + q * walk.threads
                offset = j if walk.blocked else (j // step_vec) * kvec_row + j % step_vec
                seen.append(base + s * stride + offset)
        assert sorted(seen) == list(range(n * kvec_row)), walk.label()
