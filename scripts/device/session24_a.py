"""Session 24, run A: the single-consumer schedule (CUTLASS's non-persistent KernelTmaWarpSpecialized,
Schedule.single) beside the persistent winners of the suite's one-tile-per-CTA grids. Five of the
suite's eighteen GEMMs launch no more tiles than the H200 has SMs (square.1024 128, bert-base.attn_out
128, decode.m16 64, decode.m64 116, decode.m128 128), so every persistent CTA computes one tile: its
scheduler loop, ping-pong's order barrier and the idle second consumer warpgroup are fixed cost, and
these shapes' gap to cuBLAS is fixed cost (the README's K sweep). Two interleaved turns, each twin
verified first."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import main, stored_winners  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from worker.kernels.config import KernelConfig, Schedule, TileScheduler  # noqa: E402

WINNERS = Path("bench/results/gemm_h200_20261204_session23_b_search.json")
ONE_TILE_SHAPES = ("square.1024", "bert-base.attn_out", "decode.m16", "decode.m64", "decode.m128")


def single(cfg: KernelConfig, **changes: object) -> KernelConfig:
    return replace(cfg, schedule=Schedule.single, tile_scheduler=TileScheduler.none, **changes)  # type: ignore[arg-type]


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    todo = []
    for name, spec, winner in stored_winners(WINNERS, ONE_TILE_SHAPES):
        configs = [winner, single(winner)]
        if name == "square.1024":  # cuBLAS's nvjet 128x64x64 1x2 tile, and the winner's 64-deep twin
            configs += [single(winner, tile=(128, 64, 64)), single(winner, tile=(64, 128, 64))]
        if name == "bert-base.attn_out":  # one warpgroup holding 128x192 needs 192 accumulators a thread
            configs += [single(winner, tile=(128, 128, 64), cluster=(2, 1))]  # 192 tiles: 1.45 waves
        todo.append((name, spec, configs))
    return todo


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
