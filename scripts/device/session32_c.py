"""Session 32, run D (pairs part): decode.m128's winner beside 128-weight-row tiles on two K slices.

Run C's intake floor (H100, intake_floor_h100_20261206_session32_c.json) read decode.m128's weight
with its winner's per-CTA intake (64 weight rows and 64 tokens' activations a k-step, 128 CTAs) at
0.79 of the linear read, and with 128 weight rows on two K slices (half the activation bytes per
weight byte, still 128 CTAs) at 0.88: an 11% faster plain read. Session 17 timed 128x64 cluster
split-K kernels at 38.7-38.8 us against 32-33 (which schedule is not recorded). Here, on one card:
the winner (swapped 64x64x64, 1x2 cluster multicasting the weight, single consumer), and swapped
128x64 tiles under cluster split-K 2 (1x1 multicast cluster: the launch cluster holds the slices)
with the cooperative schedule (both consumer warpgroups on the one tile; ping-pong would idle one)
and the ping-pong twin, at 64- and 128-deep k-tiles, each verified, two interleaved turns."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import main, stored_twins  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from worker.kernels.config import EpilogueSchedule, KernelConfig, Schedule, TileScheduler  # noqa: E402

WINNERS = Path("bench/results/gemm_h200_20261205_session30_d_replay.json")


def split_twins(winner: KernelConfig) -> list[KernelConfig]:
    def split(schedule: Schedule, depth: int) -> KernelConfig:
        return replace(winner, tile=(128, 64, depth), cluster=(1, 1), schedule=schedule, split_k_mode="cluster",
                       split_k=2, tile_scheduler=TileScheduler.none, epilogue_schedule=EpilogueSchedule.tma,
                       warp_stores=False)
    return [winner, split(Schedule.cooperative, 64), split(Schedule.pingpong, 64), split(Schedule.cooperative, 128)]


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    return stored_twins(WINNERS, ("decode.m128",), split_twins)


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
