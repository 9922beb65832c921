"""Session 20, run F: per-warp TMA stores on a swapped kernel (column-major D, templates/
warp_store_epilogue.cuh.j2) against bert-base.ffn1's fusion cost: session 20's search winner (the
swapped 128x192 2x1 ping-pong kernel) with CUTLASS's epilogue and with per-warp stores, each with
its bias + GELU and without an epilogue, every problem re-timed interleaved with the library, in two
turns."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from session18_b import ffn1_winner, problems, run  # noqa: E402

from worker.kernels.config import KernelConfig  # noqa: E402

SEARCH = Path("bench/results/gemm_h200_20261203_session20_d_search.json")


def with_and_without_warp_stores(winner: KernelConfig) -> list[KernelConfig]:
    return [replace(winner, warp_stores=False), replace(winner, warp_stores=True)]


if __name__ == "__main__":
    run(problems(with_and_without_warp_stores, ffn1_winner(SEARCH)), Path(sys.argv[1]))
