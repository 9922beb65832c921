"""Real NVRTC compiles on the CPU: one CUTLASS 2.x and one 3.x (sm_90a) variant, each with a fused
epilogue; the cubins are ELF files with both entry points; the second request is a cache hit."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest

from service.specs.epilogues import Epilogue
from service.specs.gemm import DType, Layout
from tests.nvrtc_batch import NvrtcBatch
from worker.kernels.compiler import CompileOutcome, Compiler, _Slot
from worker.kernels.config import EpilogueSchedule, Family, KernelConfig, Schedule, TileScheduler

pytestmark = pytest.mark.slow

SM80 = KernelConfig(Family.sm80_tensorop, DType.f16, Layout.row, Layout.col, Epilogue.bias_gelu, (128, 128, 32),
                    warp=(64, 64, 32), stages=3, swizzle=8)
SM90 = KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.bias_silu, (128, 128, 64),
                    schedule=Schedule.pingpong, epilogue_schedule=EpilogueSchedule.tma, tile_scheduler=TileScheduler.persistent)


# What the compile tests below build (each test's docstring says why), compiled in one batch.
DECODE_SPLIT = replace(SM90, epilogue=Epilogue.bias_gelu, tile=(64, 16, 128), epilogue_schedule=EpilogueSchedule.nosmem,
                       swap_ab=True, split_k_mode="parallel", split_k=2)
WARP_STORES_STREAMK = replace(SM90, epilogue=Epilogue.bias_gelu, schedule=Schedule.cooperative, warp_stores=True,
                              tile_scheduler=TileScheduler.streamk)
PHASE_CLOCKED = replace(SM90, epilogue=Epilogue.none, tile=(64, 128, 64), schedule=Schedule.single,
                        tile_scheduler=TileScheduler.none, phase_clock=True)
CLUSTER_SPLIT = replace(SM90, epilogue=Epilogue.bias_gelu, tile=(128, 64, 128), schedule=Schedule.cooperative,
                        epilogue_schedule=EpilogueSchedule.nosmem, tile_scheduler=TileScheduler.none, swap_ab=True,
                        split_k_mode="cluster", split_k=2)
PREFETCH_SWAPPED = replace(SM90, epilogue=Epilogue.none, tile=(64, 64, 64), cluster=(1, 2), schedule=Schedule.single,
                           tile_scheduler=TileScheduler.none, swap_ab=True, l2_prefetch=16)
PREFETCH_PLAIN = replace(SM90, l2_prefetch=8)
ODD_WIDTH = replace(SM90, epilogue=Epilogue.none, tile=(64, 88, 128), cluster=(1, 2), schedule=Schedule.single,
                    tile_scheduler=TileScheduler.none, warp_stores=True)

LEAN_CONSUMER = replace(SM90, epilogue=Epilogue.none, lean_consumer=True)
SPLIT_N = replace(SM90, epilogue=Epilogue.bias, tile=(320, 128, 64), cluster=(1, 2), schedule=Schedule.cooperative,
                  wg_split_n=True)
SPLIT_N_192 = replace(SPLIT_N, tile=(192, 192, 64), cluster=(2, 1), epilogue_store_stages=1)


def _elf_symbols(cubin: bytes) -> bytes:
    assert cubin[:4] == b"\x7fELF" and cubin[4] == 2  # 64-bit ELF
    return cubin


@pytest.mark.nvrtc(SM80, SM90)
def test_compile_sm80_and_sm90_with_fused_epilogues(nvrtc: NvrtcBatch) -> None:
    compiler = nvrtc.compiler
    outs = {o.config.family: o for o in nvrtc.outcomes(SM80, SM90)}
    for family, arch in ((Family.sm80_tensorop, "sm_90a"), (Family.sm90_tma, "sm_90a")):
        o = outs[family]
        assert o.ok, (o.error, o.log[-2000:])
        assert o.arch == arch
        cubin = _elf_symbols(o.cubin or b"")
        assert b"kiln_gemm" in cubin and b"kiln_build_params" in cubin
        assert 100_000 < len(cubin) < 20_000_000

    t = time.monotonic()
    again = compiler.compile_all([SM80, SM90], target_arch="sm_90a")
    per_variant = (time.monotonic() - t) / 2
    assert all(o.cached for o in again)
    assert per_variant < 0.05, f"cached request took {per_variant * 1000:.1f} ms per variant"
    assert [o.cubin for o in again] == [outs[Family.sm80_tensorop].cubin, outs[Family.sm90_tma].cubin]


def test_compile_failure_is_recorded_with_its_log(tmp_path: Path) -> None:
    bad = replace(SM80, warp=(48, 64, 32))  # not a legal warp tile: CUTLASS static_asserts
    out = Compiler(tmp_path / "cache", jobs=1, timeout=300).compile_all([bad], target_arch="sm_80")[0]
    assert not out.ok and out.error and "error" in out.log


def test_niced_compiles_run_below_the_callers_priority(tmp_path: Path) -> None:
    """The test suite compiles its batch behind the other tests; its compile processes must yield."""
    import os

    compiler = Compiler(tmp_path / "cache", jobs=1, niceness=7)
    slot = compiler._spawn([])
    try:
        deadline = time.monotonic() + 60  # a spawned child imports the compiler module first
        while os.getpriority(os.PRIO_PROCESS, slot.proc.pid) != os.nice(0) + 7 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert os.getpriority(os.PRIO_PROCESS, slot.proc.pid) == os.nice(0) + 7
    finally:
        slot.conn.send(None)
        slot.proc.join(10)


class _KillsItsFirstProcess(Compiler):
    """Kills the first compile process at a chosen moment, as the OOM killer might."""

    def __init__(self, cache_dir: Path, *, when: str) -> None:
        super().__init__(cache_dir, jobs=1, timeout=300)
        self.when, self.killed = when, False

    def _kill_once(self, slot: _Slot) -> None:
        if not self.killed:
            self.killed = True
            slot.proc.kill()
            slot.proc.join(10)

    def _spawn(self, slots: list[_Slot]) -> _Slot:
        slot = super()._spawn(slots)
        if self.when == "idle":
            self._kill_once(slot)
        return slot

    def _collect(self, slot: _Slot, task: tuple[KernelConfig, str, str, list[str], str]) -> CompileOutcome | None:
        if self.when == "holding_a_task":
            self._kill_once(slot)
        return super()._collect(slot, task)


def test_a_compile_process_killed_holding_a_task_fails_that_variant_only(tmp_path: Path) -> None:
    """It dies with our task unread in its socket: the parent's read is reset, not closed. That
    variant is recorded as failed, and the next one compiles in a fresh process on the same slot."""
    compiler = _KillsItsFirstProcess(tmp_path / "cache", when="holding_a_task")
    first, second = compiler.compile_all([SM80, replace(SM80, stages=4)], target_arch="sm_80")
    assert compiler.killed
    assert not first.ok and first.error == "compiler process died"
    assert second.ok, (second.error, second.log[-2000:])


def test_a_compile_process_killed_while_idle_is_replaced_before_its_task(tmp_path: Path) -> None:
    """A process that died before it was handed anything is not the variant's fault."""
    compiler = _KillsItsFirstProcess(tmp_path / "cache", when="idle")
    (out,) = compiler.compile_all([SM80], target_arch="sm_80")
    assert compiler.killed
    assert out.ok, (out.error, out.log[-2000:])


def test_two_processes_on_one_host_compile_a_variant_once(tmp_path: Path) -> None:
    """Two compilers (two GPUs' workers) share a cache: one compiles, the other waits for its cubin."""
    import threading

    results: list[list] = []

    def run() -> None:
        results.append(Compiler(tmp_path / "shared", jobs=1, timeout=300).compile_all([SM80], target_arch="sm_80"))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    outs = [r[0] for r in results]
    assert all(o.ok for o in outs) and outs[0].cubin == outs[1].cubin
    assert sorted(o.cached for o in outs) == [False, True]  # exactly one compile


@pytest.mark.nvrtc(DECODE_SPLIT)
def test_compile_swapped_operand_parallel_split_decode_kernel(nvrtc: NvrtcBatch) -> None:
    """What a decode GEMM searches: swapped operands (D^T = B·A^T, column-major D) with parallel
    split-K, i.e. fp32 partials from the GEMM and the whole epilogue (bias + GELU) in a second
    kernel of the same cubin; all three entry points."""
    [o] = nvrtc.outcomes(DECODE_SPLIT)
    assert o.ok, (o.error, o.log[-2000:])
    cubin = _elf_symbols(o.cubin or b"")
    assert b"kiln_gemm" in cubin and b"kiln_build_params" in cubin and b"kiln_splitk_reduce" in cubin


@pytest.mark.nvrtc(WARP_STORES_STREAMK, PHASE_CLOCKED)
def test_compile_kilns_own_collectives_around_cutlass(nvrtc: NvrtcBatch) -> None:
    """Kiln's per-warp-store TMA epilogue around CUTLASS's collective (templates/
    warp_store_epilogue.cuh.j2), with a row-bias fusion (the one that stages data per tile), on
    Kiln's self-clearing stream-K scheduler (templates/streamk_self_clearing.cuh.j2), and the phase
    clock's mainloop deriving from CUTLASS's (templates/phase_clock.cuh.j2) on the single-consumer
    kernel, compiled side by side; the clocked cubin exports its stamp buffer."""
    outcomes = nvrtc.outcomes(WARP_STORES_STREAMK, PHASE_CLOCKED)
    for o in outcomes:
        assert o.ok, (o.config.variant_name, o.error, o.log[-2000:])
        cubin = _elf_symbols(o.cubin or b"")
        assert b"kiln_gemm" in cubin and b"kiln_build_params" in cubin
    assert b"kiln_phase_clock" in (outcomes[1].cubin or b"") and b"kiln_phase_clock" not in (outcomes[0].cubin or b"")


def test_compile_weight_streaming_decode_kernels_for_every_dtype_and_residual(tmp_path: Path) -> None:
    """Kiln's own mma.sync kernel (no CUTLASS collective: a second of NVRTC each): f16 and bf16, a
    bias + GELU and a residual + ReLU epilogue, for plain sm_90 (clusters, no wgmma) and sm_90a."""
    base = KernelConfig(Family.sm90_skinny, DType.f16, Layout.row, Layout.col, Epilogue.bias_gelu, (16, 128, 128),
                        warp=(16, 16, 128), stages=4)
    configs = [base, replace(base, dtype=DType.bf16, epilogue=Epilogue.bias_residual_add_relu, tile=(64, 64, 64),
                             warp=(64, 32, 64))]
    compiler = Compiler(tmp_path / "cache", jobs=2, timeout=300)
    for arch in ("sm_90", "sm_90a"):
        for o in compiler.compile_all(configs, target_arch=arch):
            assert o.ok, (o.error, o.log[-2000:])
            assert o.arch == arch and o.seconds < 30
            cubin = _elf_symbols(o.cubin or b"")
            assert b"kiln_gemm" in cubin and b"kiln_build_params" in cubin


@pytest.mark.nvrtc(CLUSTER_SPLIT)
def test_compile_cluster_split_k_decode_kernel(nvrtc: NvrtcBatch) -> None:
    """Kiln's cluster split-K kernel (templates/cluster_splitk_kernel.cuh.j2) around CUTLASS's
    mainloop and no-smem epilogue, with two consumer warpgroups and a bias + GELU."""
    [o] = nvrtc.outcomes(CLUSTER_SPLIT)
    assert o.ok, (o.error, o.log[-2000:])
    cubin = _elf_symbols(o.cubin or b"")
    assert b"kiln_gemm" in cubin and b"kiln_build_params" in cubin


@pytest.mark.nvrtc(PREFETCH_SWAPPED, PREFETCH_PLAIN)
def test_compile_l2_prefetching_mainloops(nvrtc: NvrtcBatch) -> None:
    """Kiln's weight-prefetching load (templates/l2_prefetch_mainloop.cuh.j2) on both operands: the
    swapped single-consumer decode kernel, whose weight is its A and multicast along the tokens, and
    a plain persistent kernel, whose weight is its B; each cubin issues TMA L2 prefetches."""
    for o in nvrtc.outcomes(PREFETCH_SWAPPED, PREFETCH_PLAIN):
        assert o.ok, (o.config.variant_name, o.error, o.log[-2000:])
        assert b"kiln_gemm" in _elf_symbols(o.cubin or b"")


@pytest.mark.nvrtc(ODD_WIDTH)
def test_compile_odd_width_tile_with_k_first_b_atoms(nvrtc: NvrtcBatch) -> None:
    """An 88-row tile (eleven 8-row groups: decode.m64's 126 tiles where 96 rows make 115) needs CuTe's
    extended wgmma widths and B's K atoms side by side (render.py: k_first_b_atoms); CUTLASS's own
    layout fails CuTe's divisibility checks in its TMA and wgmma partitions. B's copy is built from a
    hierarchical view of B, and the mainloop's static_assert (one_box_b_mainloop.cuh.j2) holds the
    compile to one TMA box per stage of B."""
    [o] = nvrtc.outcomes(ODD_WIDTH)
    assert o.ok, (o.error, o.log[-2000:])
    assert b"kiln_gemm" in _elf_symbols(o.cubin or b"")


@pytest.mark.nvrtc(LEAN_CONSUMER)
def test_compile_consumer_loop_unrolled_over_the_stages(nvrtc: NvrtcBatch) -> None:
    """templates/lean_consumer_mainloop.cuh.j2 reads the pipeline's barrier layout and its arrival
    rule from CUTLASS's public API and static_asserts what it assumes; a CUTLASS update that moves
    either fails here, on the CPU."""
    (out,) = nvrtc.outcomes(LEAN_CONSUMER)
    assert out.ok, (out.error, out.log[-2000:])
    assert b"kiln_gemm" in _elf_symbols(out.cubin or b"")


@pytest.mark.nvrtc(SPLIT_N, SPLIT_N_192)
def test_compile_warpgroups_split_along_n(nvrtc: NvrtcBatch) -> None:
    """The split-N cooperative kernel (KernelConfig.wg_split_n) builds its own TiledMma and epilogue
    policy from CUTLASS's parts; a 320-row tile also takes the Int<320> CuTe does not name, and a
    192-wide one assembles CUTLASS's epilogue collective around 32-column shared-memory atoms. A
    CUTLASS update that changes what those parts assume fails here, on the CPU."""
    for out in nvrtc.outcomes(SPLIT_N, SPLIT_N_192):
        assert out.ok, (out.config.variant_name, out.error, out.log[-2000:])
        assert b"kiln_gemm" in _elf_symbols(out.cubin or b"")
