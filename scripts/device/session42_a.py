"""Session 42, run A (pairs part): do nvjet's "coopB" tiles, the cooperative kernel with its two
consumer warpgroups side by side along N (KernelConfig.wg_split_n), close the gaps where cuBLAS runs
them? nvjet runs 192x128 on bert-base.attn_out (Kiln 0.965 on the H200) and ffn2, 192x192 on
bert-base.qkv and llama7b.up, 320x128 on square.8192: 192- and 320-row tiles that CUTLASS's
cooperative kernel (warpgroups stacked along M) cannot build. Each winner of session 26 run C (the
H200 search; the same kernels as session 33 run B's H100 winners on these shapes but square.8192's)
beside its split-N twins and cuBLAS, two interleaved turns, each verified first."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import main, stored_twins  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from worker.kernels.config import Decomposition, EpilogueSchedule, KernelConfig, Schedule, TileScheduler  # noqa: E402

WINNERS = Path("bench/results/gemm_h200_20261204_session26_c_search.json")
# shape -> the split-N tiles, clusters and epilogue store stages to time beside its winner (nvjet's
# own pairing first where it runs coopB). 192x128 (4 stages with two 16 KB subtile stores in flight,
# 5 with one: nvjet runs 5) also where its grid is whole waves of 132 SMs: bert-base.qkv 396 tiles,
# bert-large.qkv and bert-base.ffn1 528, llama7b.qkv 1056. nvjet's 192x192 (bert-base.qkv,
# llama7b.up) with one subtile store in flight: four stages, as nvjet's (two would leave three).
TWINS: dict[str, list[tuple[tuple[int, int, int], tuple[int, int], int]]] = {
    "bert-base.attn_out": [((192, 128, 64), (1, 2), 0), ((192, 128, 64), (1, 2), 1), ((192, 128, 64), (2, 1), 0),
                           ((192, 128, 64), (1, 1), 0)],
    "bert-base.ffn2": [((192, 128, 64), (1, 2), 0), ((192, 128, 64), (1, 2), 1), ((192, 128, 64), (2, 1), 0)],
    "bert-base.qkv": [((192, 192, 64), (2, 1), 1), ((192, 192, 64), (1, 2), 1), ((192, 128, 64), (1, 2), 0),
                      ((192, 128, 64), (2, 1), 0)],
    "llama7b.up": [((192, 192, 64), (2, 1), 1)],
    "bert-large.qkv": [((192, 128, 64), (1, 2), 0), ((192, 128, 64), (2, 1), 0)],
    "bert-base.ffn1": [((192, 128, 64), (1, 2), 0)],
    "llama7b.qkv": [((192, 128, 64), (1, 2), 0), ((192, 128, 64), (2, 1), 0)],
    "square.8192": [((320, 128, 64), (1, 2), 0)],
}


def split_n(winner: KernelConfig, tile: tuple[int, int, int], cluster: tuple[int, int], store_stages: int
            ) -> KernelConfig:
    """The winner's problem, dtype and epilogue on the split-N cooperative kernel with this tile."""
    return replace(winner, tile=tile, cluster=cluster, schedule=Schedule.cooperative,
                   epilogue_schedule=EpilogueSchedule.tma, tile_scheduler=TileScheduler.persistent, swap_ab=False,
                   epilogue_tile_n=0, epilogue_store_stages=store_stages, warp_stores=False, stages=0,
                   wg_split_n=True, split_k=1, decomposition=Decomposition.heuristic)


def problems(twins_by_shape: dict[str, list[tuple[tuple[int, int, int], tuple[int, int], int]]] = TWINS
             ) -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    """Each shape's stored winner followed by its split-N twins (tile, cluster, epilogue store stages)."""
    todo = []
    for shape, twins in twins_by_shape.items():
        todo += stored_twins(WINNERS, (shape,), lambda w, twins=twins: [w, *(split_n(w, *t) for t in twins)])
    return todo


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
