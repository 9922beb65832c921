"""Session 30, run C (pairs part): one more pipeline stage for the decode winners, from the epilogue.

Run A (H100) measured the decode kernels' depth sensitivity: decode.m128's winner at 6 stages
instead of CUTLASS's carve-out (13) ran 19% slower, decode.m64's at 3 instead of 5 3.5-4.5% slower,
and nothing at two CTAs per SM came close. The carve-out leaves the TMA epilogue's staging buffers
(two 64x32 subtiles, 9 KB) out of the stages; the epilogue that stores from registers
(EpilogueSchedule.nosmem) needs none, which buys decode.m128's 64x64x64 tile a 14th stage and its
64x64x128 twin a 7th (224 KB of operands in flight against 208 and 192), and decode.m64's
64x96x64 tile an 11th (220 KB against 200); 32-deep k-tiles pack shared memory finer still (28
stages of 8 KB, 22 of 10 KB: 224 and 220 KB). Each twin beside the winner, two interleaved turns,
each verified first (scripts/device/session18_b.py runs them)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import main, stored_twins  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from worker.kernels.config import EpilogueSchedule, KernelConfig  # noqa: E402

WINNERS = Path("bench/results/gemm_h200_20261204_session26_c_search.json")


def from_registers(cfg: KernelConfig) -> KernelConfig:
    return replace(cfg, epilogue_schedule=EpilogueSchedule.nosmem, warp_stores=False)


def m128_twins(winner: KernelConfig) -> list[KernelConfig]:
    deep, thin = replace(winner, tile=(64, 64, 128)), replace(winner, tile=(64, 64, 32))
    return [winner, from_registers(winner), deep, from_registers(deep), from_registers(thin)]


def m64_twins(winner: KernelConfig) -> list[KernelConfig]:
    shallow, thin = replace(winner, tile=(64, 96, 64)), replace(winner, tile=(64, 96, 32))
    return [winner, from_registers(winner), shallow, from_registers(shallow), from_registers(thin)]


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    return [*stored_twins(WINNERS, ("decode.m128",), m128_twins), *stored_twins(WINNERS, ("decode.m64",), m64_twins)]


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
