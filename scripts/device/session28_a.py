"""Session 28, run A (pairs part): decode.m128's winner against swapped tiles that deliver fewer
bytes to the SMs. The swapped 64x64x64 winner (1x2 cluster along the tokens) streams its 90 MB
weight at 4.0 TB/s from first data to last wgmma (session 25 run E's phase clock), against the
bare-read floor's 4.4 TB/s: each CTA receives its 64 weight rows *and* its 64 tokens' activations
over the whole K, 361 MB in all (weights twice, once per token tile, activations 64 times, once
per weight-row tile), about 16 TB/s into the SMs, the L2-to-SM rate session 27 measured as
the H200's peak. A 128x128 tile (every token, 128 weight rows) halves that to 180 MB and the
shared-memory traffic per MAC by 37%, but makes only 32 tiles: K is split four ways (stream-K's
split mode, partials reduced in the kernel, or parallel split-K's partials + reduction kernel) to
fill the 128 SMs. 128x64 split two ways (270 MB) is run C's 31.9 µs reference. Two interleaved
turns, each twin verified first (scripts/device/session18_b.py runs them).

bert-base.attn_out (0.963, the suite's lowest) rides along: cuBLAS runs it with nvjet's 192x128
tile under a 1x2 cluster, 22 x 6 = 132 CTAs (every SM, one round), where Kiln's 128x192 winner makes
128. Kiln's tall swapped single-consumer kernel is that tile (192 along M, 128 along N); the search
timed it only under 2x1 (13.39 µs against the winner's 13.09), so here it runs under every cluster."""

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


def delivery_twins(winner: KernelConfig) -> list[KernelConfig]:
    """decode.m128's winner, then the swapped cooperative tiles that move fewer bytes into the SMs."""
    coop = replace(winner, schedule=Schedule.cooperative, warp_stores=False)
    streamk = replace(coop, tile_scheduler=TileScheduler.streamk, epilogue_schedule=EpilogueSchedule.tma)
    parallel = replace(coop, tile_scheduler=TileScheduler.persistent, epilogue_schedule=EpilogueSchedule.nosmem,
                       split_k_mode="parallel")
    return [
        winner,
        replace(streamk, tile=(128, 128, 64), cluster=(1, 1), split_k=4),
        replace(streamk, tile=(128, 128, 64), cluster=(2, 1), split_k=4),
        replace(parallel, tile=(128, 128, 64), cluster=(1, 1), split_k=4),
        replace(streamk, tile=(128, 64, 64), cluster=(1, 2), split_k=2),
    ]


def tall_swapped_twins(winner: KernelConfig) -> list[KernelConfig]:
    """attn_out's winner, then the swapped 128x192 single-consumer kernel (nvjet's 192x128) under each cluster."""
    swapped = replace(winner, tile=(128, 192, 64), swap_ab=True)
    return [winner, *(replace(swapped, cluster=c) for c in ((1, 1), (2, 1), (1, 2)))]


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    return (stored_twins(WINNERS, ("decode.m128",), delivery_twins)
            + stored_twins(WINNERS, ("bert-base.attn_out",), tall_swapped_twins))


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
