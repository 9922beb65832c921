"""Session 16, run G: bert-base.qkv's 128x128 tile under both schedules, each as 1x2 and 2x2, in one
interleaved problem beside cuBLAS: does cooperative lose to its own 1x2 twin where ping-pong gains?"""

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
    base = KernelConfig(Family.sm90_tma, DType.f16, Layout.row, Layout.col, Epilogue.none, (128, 128, 64),
                        cluster=(1, 2), schedule=Schedule.pingpong, epilogue_schedule=EpilogueSchedule.tma,
                        tile_scheduler=TileScheduler.persistent)
    configs = [replace(base, schedule=s, cluster=c) for s in (Schedule.pingpong, Schedule.cooperative)
               for c in ((1, 2), (2, 2))]
    twins_run("bert-base.qkv", GemmSpec(m=4096, n=2304, k=768), configs, 2, Path(sys.argv[1]))
