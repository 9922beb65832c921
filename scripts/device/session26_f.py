"""Session 26, run F: the TMA descriptors' L2 promotion on the one-round single-consumer winners.
Run E had square.1024's 128x64 1x1 single kernel at 7.23 µs under Nsight Compute with no promotion
against run D's 7.58 at the default 128; the search times only 256 beside the default
(selection.LEADER_L2_PROMOTIONS). Each single winner of run C's search at promotions 0, 128 and
256; two interleaved turns, each verified first."""

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
SHAPES = ("square.1024", "bert-base.attn_out", "decode.m64", "decode.m128", "decode.m16")


def promotions(winner: KernelConfig) -> list[KernelConfig]:
    return [replace(winner, l2_promotion=size) for size in (0, 128, 256)]


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    return stored_twins(WINNERS, SHAPES, promotions)


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
