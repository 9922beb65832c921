"""Session 25, run A: the wgmma issue order (KernelConfig.mma_order, templates/kiln_mainloop.cuh.j2).
Session 24 run I's SASS shows nvjet issuing each 64-row accumulator block's k-steps back to back and
waiting on the previous k-block between its row blocks, where CUTLASS alternates row blocks per
k-step. Every run B winner with two or more row blocks per consumer warpgroup (and the 256x128
cooperative twin of the two 128x256 winners, square.1024's 128x64 single twin) beside its "rows"
and "rows_wait" twins; two interleaved turns, each twin verified first."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import main, stored_winners  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from worker.kernels.config import KernelConfig, MmaOrder  # noqa: E402
from worker.kernels.render import accumulator_row_blocks  # noqa: E402

WINNERS = Path("bench/results/gemm_h200_20261204_session24_b_search.json")
SHAPES = ("llama7b.o_proj", "llama7b.down", "llama7b.qkv", "bert-large.attn_out", "bert-large.ffn2",
          "bert-base.attn_out", "bert-base.qkv", "bert-large.qkv", "bert-large.ffn1", "square.1024",
          "square.8192")


def ordered(base: KernelConfig) -> list[KernelConfig]:
    return [base, replace(base, mma_order=MmaOrder.rows), replace(base, mma_order=MmaOrder.rows_wait)]


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    """Each winner and its two orders; a winner with one row block per warpgroup (128x256
    cooperative, 64x128 single) first, then its transposed tile and that tile's two orders."""
    todo = []
    for name, spec, winner in stored_winners(WINNERS, SHAPES):
        if accumulator_row_blocks(winner) >= 2:
            todo.append((name, spec, ordered(winner)))
        else:
            m, n, k = winner.tile
            todo.append((name, spec, [winner, *ordered(replace(winner, tile=(n, m, k)))]))
    return todo


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
