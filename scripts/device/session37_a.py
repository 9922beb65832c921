"""Session 37, run A (pairs part): does decode.m64 stream faster on more SMs?

decode.m64 (64x11008x4096) runs cuBLAS's 96-row weight tiling, 64x96x128 under a 1x4 cluster: 115
tiles, 116 CTAs on 132 SMs. Its weight stream is bound by the bytes each SM keeps in flight (session
28: 71.5% of DRAM's peak, where a plain read reaches about 90%; sessions 29-30: one CTA per SM with
CUTLASS's full pipeline, more than one per SM loses), so each SM's share of the weight sets the time.
An 88-row tile (wgmma takes any N that is a multiple of 8) makes 126 tiles: 8% fewer rows per SM and
ten more SMs streaming. Four-CTA clusters fit 120 CTAs on the H200 (session 16), under 126, so the
88-row twins pair CTAs 1x2 (the activation multicast over two) or not at all; the winner's own
96-row tile under 1x2 and 1x1 rides along to separate the tile from the cluster. Two interleaved
turns, each twin verified first (scripts/device/session18_b.py runs them). decode.m16 rides along: its
64 swapped CTAs beside 128 plain ones of half the weight rows each."""

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


def m64_twins(winner: KernelConfig) -> list[KernelConfig]:
    """Plain frame (kernel M = 64 tokens, N = 11008 weight rows): the 88-row weight tiles beside the
    winner (K 128 only: an odd number of 8-row groups needs B's K atoms side by side, render.py's
    k_first_b_atoms). The TMA epilogue's automatic subtile is 64x8 there (gcd(32, 88)), so the
    register epilogue rides along."""
    narrow = replace(winner, tile=(64, 88, 128), cluster=(1, 2))
    return [winner, replace(winner, cluster=(1, 2)), narrow, replace(narrow, cluster=(1, 1)),
            replace(narrow, epilogue_schedule=EpilogueSchedule.nosmem, warp_stores=False)]


def m16_twins(winner: KernelConfig) -> list[KernelConfig]:
    """decode.m16's winner (swapped 64x16 under 4x1: 64 CTAs of 64 weight rows) beside the plain frame's
    64x32 tile (16 tokens in a 64-row tile, TMA zero-fills the rest): 128 CTAs of 32 weight rows, the
    activations multicast over a pair or not at all."""
    plain = replace(winner, swap_ab=False, tile=(64, 32, 128), cluster=(1, 2),
                    epilogue_schedule=EpilogueSchedule.tma, warp_stores=True)
    return [winner, plain, replace(plain, cluster=(1, 1))]


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    return [*stored_twins(WINNERS, ("decode.m64",), m64_twins), *stored_twins(WINNERS, ("decode.m16",), m16_twins)]


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
