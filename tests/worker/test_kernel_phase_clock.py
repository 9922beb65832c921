"""Kiln's phase clock (KernelConfig.phase_clock): what the template renders and how the bench reads
a launch's stamp buffer back (bench/phase_clock.py). The GPU side is in tests/gpu/test_gpu_tuning.py."""

from __future__ import annotations

from dataclasses import replace

from bench.phase_clock import ALL_ONES, SLOTS, decode, phases
from service.specs.epilogues import Epilogue
from service.specs.gemm import DType, Layout
from worker.kernels.config import EpilogueSchedule, Family, KernelConfig, Schedule, TileScheduler
from worker.kernels.render import render

COOP = KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.none, (256, 128, 64), cluster=(1, 2),
                    schedule=Schedule.cooperative, epilogue_schedule=EpilogueSchedule.tma,
                    tile_scheduler=TileScheduler.persistent)


def test_the_clock_is_compiled_in_only_when_asked_and_named() -> None:
    plain = render(COOP)
    assert "kiln_phase" not in plain and "globaltimer" not in plain
    clocked = replace(COOP, phase_clock=True)
    src = render(clocked)
    assert "using CollectiveMainloop = kiln_phase::ClockedMainloop<BuiltMainloop>;" in src
    assert "__device__ unsigned long long kiln_phase_clock[" in src and "%%globaltimer" in src
    assert clocked.name == "sm90_f16_rc_t256x128x64_c1x2_cooperative_tma_persistent_pc_a888_none"
    assert clocked.compiled == clocked and KernelConfig.from_dict(clocked.to_dict()) == clocked


def _cta(entry: int, mainloop: int, data: int, done: int, exit_: int, mainloops: int, sm: int) -> list[int]:
    # as the kernel leaves them: minima as t, maxima complemented, counts up from all-ones; the
    # producer's first load 300 ns after entry, load_init 100 ns after it
    def count(n: int) -> int:
        return (ALL_ONES + n) % (1 << 64)

    # 80k SM cycles in mma(), 20k of them waiting on data
    return [entry, mainloop, data, ALL_ONES ^ done, ALL_ONES ^ exit_, count(mainloops), sm, entry + 300, entry + 100,
            count(80_000), count(20_000)]


def test_a_launch_buffer_decodes_into_per_cta_phases() -> None:
    raw = (_cta(1_000, 1_900, 2_600, 50_000, 51_500, 2, 0) + _cta(1_400, 2_100, 3_000, 52_000, 53_000, 2, 7)
           + [ALL_ONES] * len(SLOTS))  # a third CTA that never ran (past the grid, or no stamps)
    rows = decode(raw, 3)
    assert [r["sm"] for r in rows] == [0, 7] and rows[0]["mainloops"] == 2 and rows[1]["exit"] == 53_000
    p = phases(rows)
    assert p["ctas"] == 2 and p["span_us"] == 52.0 and p["entry_skew_us"] == 0.4
    assert p["to_mainloop_us"] == 0.8 and p["to_first_data_us"] == 1.6  # medians of 0.9/0.7 and 1.6/1.6
    assert p["to_first_load_us"] == 0.3 and p["to_load_init_us"] == 0.1 and p["data_wait_share"] == 0.25
    assert p["mainloop_us"] == 48.2 and p["tail_us"] == 1.25 and p["mainloops_per_cta"] == 2
    assert p["last_mainloop_done_us"] == 51.0 and p["mainloops"] == 4


def test_the_weight_prefetch_is_compiled_in_only_when_asked_and_named() -> None:
    """KernelConfig.l2_prefetch (templates/l2_prefetch_mainloop.cuh.j2) prefetches the weight: the
    kernel's B, or its A when the operands are swapped; never beside the phase clock's load()."""
    import pytest

    from worker.kernels.render import UnsupportedConfig

    assert "L2PrefetchLoad" not in render(COOP)
    plain = replace(COOP, l2_prefetch=16)
    src = render(plain)
    assert "using CollectiveMainloop = kiln_mainloop::L2PrefetchLoad<BuiltMainloop, 16, false>;" in src
    assert "cute::prefetch(mainloop_params.tma_load_b" in src
    assert plain.name == "sm90_f16_rc_t256x128x64_c1x2_cooperative_tma_persistent_pf16_a888_none"
    assert KernelConfig.from_dict(plain.to_dict()) == plain and plain.compiled == plain
    swapped = replace(COOP, tile=(64, 64, 64), schedule=Schedule.single, tile_scheduler=TileScheduler.none,
                      swap_ab=True, l2_prefetch=8)
    assert "L2PrefetchLoad<BuiltMainloop, 8, true>" in render(swapped)
    for bad in (replace(COOP, l2_prefetch=3), replace(COOP, l2_prefetch=8, phase_clock=True),
                replace(COOP, family=Family.sm80_tensorop, l2_prefetch=8)):
        with pytest.raises(UnsupportedConfig, match="l2_prefetch"):
            render(bad)
