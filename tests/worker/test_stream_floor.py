"""The decode floor's read kernel compiles with NVRTC at every unroll the bench launches (on the
CPU; the bench verifies what it read against torch on the GPU before timing it)."""

from __future__ import annotations

from bench.stream_floor import GRIDS, PARTIAL_GRIDS, _compile


def test_read_kernel_compiles_at_every_unroll() -> None:
    for unroll in sorted({u for _, _, u in GRIDS + PARTIAL_GRIDS}):
        cubin, _ = _compile(unroll)
        assert b"stream_read" in cubin


def test_one_cta_per_sm_reads_keep_their_loads_in_flight_in_registers() -> None:
    """Without launch bounds ptxas gives a 512-thread read 32 registers and interleaves the sums with
    the loads, so an unroll of 16 held ~6 loads in flight (session 32): bounded for one CTA per SM,
    every declared 16-byte load has its four registers."""
    from bench.intake_floor import INTAKES, compile_intake_read
    from bench.tile_order_floor import compile_tile_read

    assert _compile(16)[1] <= 40 and _compile(16, (512, 1))[1] >= 4 * 16
    assert compile_tile_read(16, 1, (512, 1))[1] >= 4 * 16
    for intake in INTAKES["decode.m128"]:
        assert compile_intake_read(intake)[1] >= 4 * intake.steps_in_flight * (intake.pw + intake.pa)


def test_grids_fit_an_sm() -> None:
    assert all(blocks * threads <= 2048 and threads <= 1024 for blocks, threads, _ in GRIDS)


def test_tile_order_read_compiles_for_every_walk() -> None:
    from bench.tile_order_floor import WALKS, compile_tile_read

    for unroll, per_step in sorted({(w.unroll, w.per_step) for w in WALKS if w.buildable}):
        assert b"tile_read" in compile_tile_read(unroll, per_step)[0]


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


def test_intake_read_compiles_for_every_decode_winner() -> None:
    from bench.intake_floor import INTAKES, compile_intake_read

    for intake in (i for intakes in INTAKES.values() for i in intakes):
        assert b"intake_read" in compile_intake_read(intake)[0]
    for intakes in INTAKES.values():  # the variants differ in activation loads only
        assert len({i.steps_in_flight * i.pw for i in intakes}) == 1


def test_intake_read_covers_each_ctas_tiles() -> None:
    """The kernel's addressing, replayed on the index space of a small problem with a partial last
    weight block: each CTA reads every vector of its weight rows and of its token tile's first
    a_rows activation rows once, so W is read once per token tile and each read activation row once
    per weight block (what expected_sum assumes; the GPU run checks the sum too)."""
    import collections
    import itertools
    import math

    from bench.intake_floor import THREADS, Intake

    m, n, k = 32, 160, 8 * 64  # 160 rows: a partial last block of 96-row tiles
    for intake in (Intake(96, 16, 16, 256), Intake(64, 16, 8, 128), Intake(64, 32, 0, 128),
                   Intake(64, 16, 16, 128, slices=2)):
        kvec, step_vec = k // 8, intake.step_bytes // 16
        blocks, tiles = intake.grid(m, n)
        steps = kvec // step_vec // intake.slices
        w_reads: collections.Counter[int] = collections.Counter()
        a_reads: collections.Counter[int] = collections.Counter()
        for cta, t, s in itertools.product(range(intake.ctas(m, n)), range(THREADS), range(steps)):
            # a row block's token tiles, then its K slices, are launch neighbours
            tt, sl, rb = cta % tiles, (cta // tiles) % intake.slices, cta // (tiles * intake.slices)
            k_step = (sl * steps + s) * step_vec
            rows_here = min(intake.w_rows, n - rb * intake.w_rows)
            for q in range(intake.pw):
                j = t + q * THREADS
                if j < rows_here * step_vec:
                    w_reads[rb * intake.w_rows * kvec + (j // step_vec) * kvec + j % step_vec + k_step] += 1
            for q in range(intake.pa):
                j = t + q * THREADS
                if j < intake.a_rows * step_vec:
                    a_reads[tt * intake.tokens * kvec + (j // step_vec) * kvec + j % step_vec + k_step] += 1
        assert sorted(w_reads) == list(range(n * kvec)) and set(w_reads.values()) == {tiles}
        wanted = [tt * intake.tokens * kvec + i for tt in range(math.ceil(m / intake.tokens))
                  for i in range(intake.a_rows * kvec)]
        assert sorted(a_reads) == wanted and set(a_reads.values()) <= {blocks}


def test_read_kernels_launch_with_their_grid_memory_and_arguments(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Every floor's read (linear, tile order, intake) launches through ReadKernel.launch_with: the
    grid, threads, dynamic shared memory and the argument pointers reach cuLaunchKernel as given
    (a recording driver stands in for the GPU's)."""
    import ctypes
    import types

    import torch

    from bench.intake_floor import THREADS, Intake, IntakeRead
    from bench.stream_floor import StreamRead
    from bench.tile_order_floor import ONE_PER_SM_SMEM, WALKS, TileRead

    calls = []

    class Driver:
        def cuLaunchKernel(self, fn, gx, gy, gz, bx, by, bz, smem, stream, argv, extra):  # type: ignore[no-untyped-def]
            pointers = ctypes.cast(argv, ctypes.POINTER(ctypes.c_void_p))
            calls.append((gx, bx, smem, ctypes.cast(pointers[2], ctypes.POINTER(ctypes.c_int)).contents.value))
            return (0,)

    monkeypatch.setattr(torch.cuda, "current_stream", lambda: types.SimpleNamespace(cuda_stream=0))

    def bare(cls):  # type: ignore[no-untyped-def]
        kernel = object.__new__(cls)
        kernel.driver, kernel.check, kernel.function = Driver(), (lambda r: r), None
        return kernel

    w, a, sink = torch.zeros(256, 512, dtype=torch.float16), torch.zeros(64, 512, dtype=torch.float16), torch.zeros(1)
    bare(StreamRead).launcher(w, sink, 264, 256)()
    walk = next(x for x in WALKS if x.fits(256, 512) and x.one_per_sm)
    bare(TileRead).launcher(w, sink, walk)()
    intake = bare(IntakeRead)
    intake.intake = Intake(64, 64, 64, 128)
    intake.launcher(w, a, sink, 64)()
    assert calls[0][:3] == (264, 256, 0)
    assert calls[1] == (256 // walk.rows * walk.slices, walk.threads, ONE_PER_SM_SMEM, walk.rows)
    assert calls[2] == (4, THREADS, ONE_PER_SM_SMEM, 256)  # 4 weight blocks x 1 token tile x 1 slice; its n


def test_the_linear_reference_launches_two_256_thread_ctas_per_sm(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The one linear read tile-floor and intake-floor quote against: 2 CTAs of 256 threads per SM,
    built with launch bounds saying so (a recording launch stands in for the GPU)."""
    import types

    import torch

    from bench import stream_floor

    built, launched = [], []

    class Recording:
        def __init__(self, unroll: int, bounds: tuple[int, int]) -> None:
            built.append((unroll, bounds))

        def launcher(self, w, sink, blocks, threads):  # type: ignore[no-untyped-def]
            launched.append((blocks, threads))
            return lambda: None

    monkeypatch.setattr(stream_floor, "StreamRead", Recording)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda _: types.SimpleNamespace(multi_processor_count=132))
    fns = stream_floor.LinearReference().launchers([object(), object()], None)
    assert built == [(8, (256, 2))] and launched == [(264, 256)] * 2 and len(fns) == 2
