"""Session 33, run A: stream-K on the wave-quantized compute-bound shapes.

The replay at ddb3658 leaves llama7b.qkv (0.996), o_proj (0.982), down (0.988), bert-large.attn_out
(0.983) and bert-large.ffn2 (0.986) under cuBLAS. Each launches a whole number of rounds whose last
one is nearly full: o_proj's and down's 256 tiles of 256x128 on 132 SMs are 1.94 rounds, qkv's
768 are 5.82, bert-large.ffn2's 128 tiles of 128x256 are 0.97. Those last 3-6% of a round are
what stream-K gives back, and it was never timed there: `prune.streamk_for_tails` drops stream-K
when the tail wave is over 3/4 full, and CUTLASS's own heuristic runs such a launch data-parallel,
so only the forced decomposition (`Decomposition.streamk`: full rounds but the last two
data-parallel, the rest shared) shares them. Here, per shape: the stored winner, then cooperative
tiles under the persistent scheduler beside their stream-K twins forced to share, each verified,
two interleaved turns beside cuBLAS."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import main, stored_winners  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from worker.kernels.config import (  # noqa: E402
    Decomposition,
    EpilogueSchedule,
    KernelConfig,
    Schedule,
    TileScheduler,
)

WINNERS = Path("bench/results/gemm_h200_20261205_session30_d_replay.json")

# per shape: the cooperative tiles (1x2 clusters) whose persistent and forced stream-K launches are timed
TILES: dict[str, tuple[tuple[int, int, int], ...]] = {
    "llama7b.o_proj": ((256, 128, 64), (128, 256, 64)),
    "llama7b.down": ((256, 128, 64), (128, 256, 64)),
    "llama7b.qkv": ((256, 128, 64), (128, 256, 64), (128, 192, 64)),
    "bert-large.attn_out": ((128, 128, 64), (256, 128, 64)),
    "bert-large.ffn2": ((128, 256, 64),),
    "bert-large.ffn1": ((256, 128, 64),),
    "bert-base.ffn2": ((128, 192, 64),),
}


def cooperative(winner: KernelConfig, tile: tuple[int, int, int], scheduler: TileScheduler) -> KernelConfig:
    """`winner`'s epilogue, dtype and launch arguments on a cooperative `tile` under a 1x2 cluster with
    the TMA epilogue: the frame CUTLASS's stream-K scheduler needs (ping-pong has none)."""
    return replace(winner, tile=tile, cluster=(1, 2), schedule=Schedule.cooperative, swap_ab=False,
                   epilogue_schedule=EpilogueSchedule.tma, tile_scheduler=scheduler, warp_stores=False,
                   split_k=1, split_k_mode="none", decomposition=Decomposition.heuristic)


def twins(winner: KernelConfig, tiles: tuple[tuple[int, int, int], ...]) -> list[KernelConfig]:
    out = [winner]
    for tile in tiles:
        persistent = cooperative(winner, tile, TileScheduler.persistent)
        shared = replace(cooperative(winner, tile, TileScheduler.streamk), decomposition=Decomposition.streamk)
        out += [c for c in (persistent, shared) if c != winner]
    return out


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    return [(name, spec, twins(winner, TILES[name])) for name, spec, winner in stored_winners(WINNERS, tuple(TILES))]


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
