"""Session 26, run C (pairs part): per-warp TMA stores on the persistent winners, and pipeline
depths on the one-round single-consumer winners. Run A found them
worth 0.5-2% on the one-round single-consumer kernels, whose last epilogue nothing overlaps;
session 15 had found them worth -0.6% to +1.3% on the winners of its day. Each persistent
TMA-epilogue winner of session 24's search beside its per-warp-store twin; two interleaved turns,
each twin verified first (scripts/device/session18_b.py runs them)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import main, stored_twins  # noqa: E402
from session26_a import warp_store_twins  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from worker.kernels.config import KernelConfig  # noqa: E402

WINNERS = Path("bench/results/gemm_h200_20261204_session24_b_search.json")
SHAPES = ("bert-large.ffn2", "bert-large.attn_out", "llama7b.o_proj", "llama7b.down", "bert-base.qkv",
          "bert-large.qkv", "llama7b.qkv")


# The one-round single-consumer winners (per-warp stores since run A) at explicit pipeline depths
# below CUTLASS's carve-out (nine 24 KB stages on square.1024's 64x128x64, five 40 KB ones on
# attn_out's 128x192x64): all 128 CTAs ask for every stage at once from cold memory, and the
# consumers wait 52-57% of their mainloop for data (session 25 run N).
STAGES = {"square.1024": (4, 6), "bert-base.attn_out": (3, 4)}


def stage_twins(winner: KernelConfig, depths: tuple[int, ...]) -> list[KernelConfig]:
    base = replace(winner, warp_stores=True)
    return [base, *(replace(base, stages=s) for s in depths)]


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    return (stored_twins(WINNERS, SHAPES, warp_store_twins)
            + [p for name, depths in STAGES.items()
               for p in stored_twins(WINNERS, (name,), lambda w, d=depths: stage_twins(w, d))])


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
