"""Session 18, run C: is ping-pong's overlap what bert-base.ffn1's fusion cost is made of? In
ping-pong one warpgroup's bias + GELU runs beside the other's wgmma; in the cooperative schedule
both warpgroups run the epilogue together after the mainloop, overlapping nothing. The fused winner's
cooperative twins (its own 128x128 tile, and nvjet's 256x128 for this GEMM), each with and without
the epilogue, beside the ping-pong winner, two interleaved turns."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from session18_b import problems, run  # noqa: E402

from worker.kernels.config import KernelConfig, Schedule  # noqa: E402


def cooperative_twins(winner: KernelConfig) -> list[KernelConfig]:
    coop = replace(winner, schedule=Schedule.cooperative)
    return [winner, coop, replace(coop, tile=(256, 128, 64))]


if __name__ == "__main__":
    run(problems(cooperative_twins), Path(sys.argv[1]))
