"""Session 37, run C (pairs part): do interleaved K slices keep cluster split-K's weight stream fast?

Session 28's Nsight Compute pass on decode.m128 found that the more K slices a kernel runs at once,
the lower its DRAM share (one slice 70% of peak, two 63%, four 52%), while nvjet's own two-slice
kernel holds 72%. Kiln's cluster split-K gives slice r the r-th contiguous run of K tiles, so a
cluster's two CTAs read each weight row at two places K/2 apart; with interleaved slices
(KernelConfig.split_k_interleave: slice r takes K tiles r, r+S, r+2S...) they read neighbouring
K tiles of the same rows together, as one CTA would. The swapped 64x128 split in two (128 CTAs,
each weight row read once, a quarter less into the SMs than the winner's 64x64 token pair) ran
32.1-32.3 µs against the winner's 30.0-30.3 in session 22 run C. Each twin beside the winner and
cuBLAS, two interleaved turns, each verified first (scripts/device/session18_b.py runs them);
decode.m16's 64-row tiles split in two ride along (128 CTAs where the winner runs 64)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import main, stored_twins  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from worker.kernels.config import EpilogueSchedule, KernelConfig, Schedule, TileScheduler  # noqa: E402

WINNERS = Path("bench/results/gemm_h200_20261204_session26_c_search.json")


def cluster_split(winner: KernelConfig, tile: tuple[int, int, int], *, interleave: bool,
                  epilogue: EpilogueSchedule = EpilogueSchedule.nosmem) -> KernelConfig:
    """The swapped kernel with `tile`, its K split over a two-CTA launch cluster (no multicast)."""
    return replace(winner, tile=tile, cluster=(1, 1), schedule=Schedule.pingpong, epilogue_schedule=epilogue,
                   tile_scheduler=TileScheduler.none, warp_stores=False, split_k_mode="cluster", split_k=2,
                   split_k_interleave=interleave)


def m128_twins(winner: KernelConfig) -> list[KernelConfig]:
    return [winner,
            cluster_split(winner, (64, 128, 64), interleave=False),
            cluster_split(winner, (64, 128, 64), interleave=True),
            cluster_split(winner, (64, 128, 128), interleave=True),
            cluster_split(winner, (64, 128, 64), interleave=True, epilogue=EpilogueSchedule.tma)]


def m16_twins(winner: KernelConfig) -> list[KernelConfig]:
    return [winner,
            cluster_split(winner, (64, 16, 128), interleave=False),
            cluster_split(winner, (64, 16, 128), interleave=True)]


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    return [*stored_twins(WINNERS, ("decode.m128",), m128_twins), *stored_twins(WINNERS, ("decode.m16",), m16_twins)]


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
