"""Session 24, run D: does a one-round grid want two consumer warpgroups in a non-persistent kernel?
The single-consumer kernel puts a 128-row tile in one warpgroup (two wgmma row blocks each K step);
cuBLAS's square.1024 kernel (nvjet 128x64, 1x2) is a 128-row tile. Kiln's cluster split-K kernel at
one slice is a non-persistent kernel with CUTLASS's cooperative mainloop (two consumer warpgroups,
one tile per CTA, no multicast), so it answers the question on 1x1 clusters before anything is built:
each pair below differs only in one warpgroup against two. Also the single kernel's clusters on
square.1024 (1x1, 2x1 against the 1x2 winner). Two interleaved turns, each verified first."""

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


def single(tile: tuple[int, int, int], cluster: tuple[int, int] = (1, 1)) -> KernelConfig:
    return KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.none, tile, cluster=cluster,
                        schedule=Schedule.single, epilogue_schedule=EpilogueSchedule.tma,
                        tile_scheduler=TileScheduler.none)


def two_consumers(tile: tuple[int, int, int]) -> KernelConfig:
    """Cluster split-K at one slice: CUTLASS's cooperative mainloop, one tile per CTA."""
    return replace(single(tile), schedule=Schedule.cooperative, split_k_mode="cluster", split_k=1)


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    return [
        ("square.1024", GemmSpec(m=1024, n=1024, k=1024),
         [single((64, 128, 128), (1, 2)), single((64, 128, 128)), single((64, 128, 128), (2, 1)),
          single((128, 64, 64)), two_consumers((128, 64, 64)),
          single((128, 64, 128)), two_consumers((128, 64, 128))]),
        ("bert-base.attn_out", GemmSpec(m=4096, n=768, k=768),
         [single((128, 192, 64), (1, 2)), single((128, 192, 64)), two_consumers((128, 192, 64))]),
    ]


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
