"""Session 24, run G: decode.m16 (1.126-1.148x, target 1.15) around its single-consumer winner, the
swapped 64x16x128 under 4x1 with the no-smem epilogue: the TMA epilogue, K tiles of 64 and 256, 2x1
and 8x1 clusters, a 32-wide token tile; and bert-base.attn_out's swapped 128x192 single kernel without
a cluster (the plain 128x192 single won under 1x1). Two interleaved turns, each verified first."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import main  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from service.specs.epilogues import Epilogue  # noqa: E402
from service.specs.gemm import DType, Layout  # noqa: E402
from worker.kernels.config import EpilogueSchedule, Family, KernelConfig, Schedule, TileScheduler  # noqa: E402

M16 = KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.none, (64, 16, 128), cluster=(4, 1),
                   schedule=Schedule.single, epilogue_schedule=EpilogueSchedule.nosmem,
                   tile_scheduler=TileScheduler.none, swap_ab=True)
ATTN_OUT = replace(M16, tile=(128, 192, 64), cluster=(1, 1), epilogue_schedule=EpilogueSchedule.tma)


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    return [
        ("decode.m16", GemmSpec(m=16, n=4096, k=4096),
         [M16, replace(M16, epilogue_schedule=EpilogueSchedule.tma), replace(M16, tile=(64, 16, 64)),
          replace(M16, tile=(64, 16, 256)), replace(M16, cluster=(2, 1)), replace(M16, cluster=(8, 1)),
          replace(M16, tile=(64, 32, 128))]),
        ("bert-base.attn_out", GemmSpec(m=4096, n=768, k=768),
         [replace(ATTN_OUT, swap_ab=False), ATTN_OUT, replace(ATTN_OUT, cluster=(2, 1))]),
    ]


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
