"""Session 28, run B (pairs part; written in session 28, which got no second device start): does
prefetching the weight into L2 ahead of the loads (KernelConfig.l2_prefetch,
templates/l2_prefetch_mainloop.cuh.j2) lift the decode winners past the 70-72% of DRAM bandwidth
that they and cuBLAS's kernels reach (run A's Nsight Compute profile)? Each decode winner of
session 26's search beside its twins prefetching 8, 16 and 32 k-tiles ahead; two interleaved turns,
each twin verified first (scripts/device/session18_b.py runs them). llama7b.down rides along: a
compute-bound shape whose weight (90 MB, K = 11008) streams from HBM too, where prefetching should
cost nothing if it gains nothing."""

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
DISTANCES = (8, 16, 32)


def prefetch_twins(winner: KernelConfig) -> list[KernelConfig]:
    return [winner, *(replace(winner, l2_prefetch=d) for d in DISTANCES)]


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    return stored_twins(WINNERS, ("decode.m16", "decode.m64", "decode.m128", "llama7b.down"), prefetch_twins)


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
