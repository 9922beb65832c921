"""Session 24, run J: more wgmma batches in flight (KernelConfig.mma_in_flight, templates/kiln_mainloop.cuh.j2)
on the compute-bound shapes at 0.98-0.99 (run I: llama7b.o_proj on nvjet's own tile, same HGMMA count,
more stall samples at HGMMA). Each of run B's winners beside its twins at 2 and 3 batches in flight
(CUTLASS keeps 1), two interleaved turns, each verified first."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import main  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from worker.kernels.config import KernelConfig  # noqa: E402

WINNERS = Path("bench/results/gemm_h200_20261204_session24_b_search.json")
SHAPES = ("llama7b.o_proj", "llama7b.down", "bert-large.ffn2", "bert-large.attn_out")


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    rows = {r["name"]: r for r in json.loads(WINNERS.read_text())["shapes"]}
    todo = []
    for name in SHAPES:
        r = rows[name]
        winner = KernelConfig.from_dict(r["winner"])
        todo.append((name, GemmSpec(m=r["m"], n=r["n"], k=r["k"], epilogue=r["epilogue"]),
                     [winner, replace(winner, mma_in_flight=2), replace(winner, mma_in_flight=3)]))
    return todo


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
