"""Session 37, run B (pairs part): do the compute-bound winners want finer pipeline stages?

o_proj's winner (256x128x64 cooperative 1x2) fits four 48 KB stages; at most three are in flight
while the consumers work on the fourth, about 1.6 µs of loads at its rate, and one stage fewer
costs it 2.8% (session 35's twins), so its loads may still be exposed. A 32-deep k-tile keeps the
same shared memory as eight 24 KB stages, seven in flight (7/8 of the buffer instead of 3/4), and
releases each stage after half the math, at the price of twice the barrier traffic per FLOP and
64-byte TMA rows (64-byte swizzle). Each winner beside its 32-deep twin, two interleaved turns,
each twin verified first (scripts/device/session18_b.py runs them)."""

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
SHAPES = ("llama7b.o_proj", "llama7b.down", "bert-large.attn_out", "llama7b.qkv", "square.1024", "bert-base.attn_out",
          "bert-large.ffn2")


def k32_twins(winner: KernelConfig) -> list[KernelConfig]:
    """The winner and its 32-deep twin (the carve-out picks the stage count: twice the winner's)."""
    return [winner, replace(winner, tile=(winner.tile[0], winner.tile[1], 32))]


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    return stored_twins(WINNERS, SHAPES, k32_twins)


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
