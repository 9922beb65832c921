"""Session 17, run F: is decode.m128 held back by re-reading its activations from L2 once per 64 rows
of W? Its winners (cluster split-K 64x128x64, parallel split-K 64x128x128) read the 128 tokens' K
slice once per 64-row tile; a 128x128 swapped tile split four ways keeps 128 CTAs busy and reads
them half as often. Two interleaved turns beside cuBLAS."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.gemm_pairs import twins_run  # noqa: E402
from service.specs import GemmSpec  # noqa: E402
from service.specs.epilogues import Epilogue  # noqa: E402
from service.specs.gemm import DType, Layout  # noqa: E402
from worker.kernels.config import EpilogueSchedule, Family, KernelConfig, Schedule, TileScheduler  # noqa: E402

if __name__ == "__main__":
    parallel = KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.none, (64, 128, 128),
                            schedule=Schedule.pingpong, epilogue_schedule=EpilogueSchedule.nosmem,
                            tile_scheduler=TileScheduler.persistent, swap_ab=True, split_k_mode="parallel", split_k=2)
    cluster = replace(parallel, tile=(64, 128, 64), tile_scheduler=TileScheduler.none, split_k_mode="cluster")
    wide = [replace(parallel, tile=(128, 128, tk), schedule=s, split_k=4)
            for tk in (64, 128) for s in (Schedule.cooperative, Schedule.pingpong)]
    configs = [cluster, parallel, *wide]
    twins_run("decode.m128", GemmSpec(m=128, n=4096, k=11008), configs, 2, Path(sys.argv[1]))
