"""Session 30, run A (pairs part): do the decode kernels stream the weight faster at two CTAs per SM?

Session 29's `kiln bench tile-floor` (H100, run C) read each decode shape's weight in a GEMM's tile
order with plain loads: one CTA per SM reached 0.81-0.86 of the linear read, two or more per SM
0.89-0.97, in the same order. Every decode winner runs one CTA per SM (CUTLASS's carve-out fills
shared memory with stages), and decode.m128's sits at 84% of this machine's linear floor. Each twin
here halves the tile's token or weight width and fixes its stage count so that two CTAs fit in an
SM's 228 KB (grids of 230-256 CTAs, all resident at once), beside the winner and the winner at the
same fixed depth (does the depth alone matter?). Two interleaved turns, each twin verified first
(scripts/device/session18_b.py runs them)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import main, stored_twins  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from worker.kernels.config import KernelConfig  # noqa: E402

WINNERS = Path("bench/results/gemm_h200_20261204_session26_c_search.json")


def m128_twins(winner: KernelConfig) -> list[KernelConfig]:
    """Swapped frame (kernel M = 4096 weight rows, N = 128 tokens): 64 x 32-token tiles, 256 CTAs,
    the weight multicast over a token cluster of 2 or 4."""
    return [winner, replace(winner, stages=6),
            replace(winner, tile=(64, 32, 64), cluster=(1, 4), stages=8),
            replace(winner, tile=(64, 32, 64), cluster=(1, 2), stages=8),
            replace(winner, tile=(64, 32, 128), cluster=(1, 4), stages=4)]


def m64_twins(winner: KernelConfig) -> list[KernelConfig]:
    """Plain frame (kernel M = 64 tokens, N = 11008 weight rows): 48-row weight tiles (230 of them,
    232 CTAs under 1x4) or the swapped 64-row tiles (172 CTAs), the activation multicast."""
    swapped = replace(winner, swap_ab=True, tile=(64, 64, 128), cluster=(2, 1), stages=3)
    return [winner, replace(winner, stages=3),
            replace(winner, tile=(64, 48, 128), stages=3),
            replace(winner, tile=(64, 48, 64), stages=6),
            swapped]


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    return [*stored_twins(WINNERS, ("decode.m128",), m128_twins), *stored_twins(WINNERS, ("decode.m64",), m64_twins)]


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
