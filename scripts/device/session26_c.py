"""Session 26, run C (pairs part): per-warp TMA stores on the persistent winners. Run A found them
worth 0.5-2% on the one-round single-consumer kernels, whose last epilogue nothing overlaps;
session 15 had found them worth -0.6% to +1.3% on the winners of its day. Each persistent
TMA-epilogue winner of session 24's search beside its per-warp-store twin; two interleaved turns,
each twin verified first (scripts/device/session18_b.py runs them)."""

from __future__ import annotations

import sys
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


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    return stored_twins(WINNERS, SHAPES, warp_store_twins)


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
