"""Session 25, run C: more wgmma batches in flight for the single-consumer kernel
(KernelConfig.mma_in_flight, templates/kiln_mainloop.cuh.j2, first built for session 24 run J).
Run B's K sweep put square.1024's gap in its per-K rate: its 64x128x64 single kernel streams K 30%
slower than cuBLAS's 128x64 (3.62 against 2.79 us per 1024 of K) at a smaller fixed cost. One
consumer warpgroup with one batch in flight has nobody to cover its waits, unlike the two-warpgroup
kernels where run J lost. Every single-consumer winner of session 24's run B (and square.1024's
128x64x64 twin) beside its twins at 2 and 3 batches in flight; two interleaved turns, each verified."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import main, stored_winners  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from worker.kernels.config import KernelConfig  # noqa: E402

WINNERS = Path("bench/results/gemm_h200_20261204_session24_b_search.json")
SHAPES = ("square.1024", "bert-base.attn_out", "bert-base.ffn2", "decode.m16", "decode.m64", "decode.m128")


def in_flight(base: KernelConfig) -> list[KernelConfig]:
    return [base, replace(base, mma_in_flight=2), replace(base, mma_in_flight=3)]


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    todo = []
    for name, spec, winner in stored_winners(WINNERS, SHAPES):
        configs = in_flight(winner)
        if name == "square.1024":  # and the transposed tile, cuBLAS's
            configs += in_flight(replace(winner, tile=(128, 64, 64)))
        todo.append((name, spec, configs))
    return todo


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
