"""Session 21, run A: do decode GEMMs gain from multicasting the activation? In the swapped kernels
(D^T = W·X^T) a 2x1 or 4x1 cluster pairs CTAs along the weight's rows, which share the activation
tile, so each CTA re-reads a half or a quarter of it from L2. On decode.m64 (128x64x128 tiles) the
activation is a third of each CTA's L2-to-SM bytes (1 MB of W, 512 KB of X); cuBLAS's kernel there
is nvjet 96x64 under a 4x1 cluster. The cost model gives small grids' clusters a 2% penalty, so
the search never times them (session 20 run D: decode.m64's 16 are all 1x1 but two 64x32 tiles).
Each decode shape's session 20 winner beside its 2x1 and 4x1 twins (cooperative and ping-pong),
and cuBLAS's 64x96 tiling (115 CTAs) as a plain kernel, two turns."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import main  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from worker.kernels.config import EpilogueSchedule, KernelConfig, Raster, Schedule, TileScheduler  # noqa: E402

WINNERS = Path("bench/results/gemm_h200_20261203_session20_d_search.json")
DECODE = ("decode.m16", "decode.m64")


def plain(winner: KernelConfig) -> KernelConfig:
    """The winner at launch defaults (heuristic raster, no swizzle): twins differ in one thing."""
    return replace(winner, raster=Raster.heuristic, max_swizzle=1)


def twins(winner: KernelConfig) -> list[KernelConfig]:
    base = plain(winner)
    out = [winner]
    for cluster in ((2, 1), (4, 1)):
        for schedule in (Schedule.cooperative, Schedule.pingpong):
            if schedule is Schedule.cooperative and base.tile[0] < 128:
                continue
            out.append(replace(base, cluster=cluster, schedule=schedule))
    return out


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    rows = {r["name"]: r for r in json.loads(WINNERS.read_text())["shapes"]}
    todo = []
    for name in DECODE:
        r = rows[name]
        winner = KernelConfig.from_dict(r["winner"])
        configs = twins(winner)
        if name == "decode.m64":  # cuBLAS's tiling: 64 x 96 over N = 11008 is 115 CTAs
            configs += [replace(plain(winner), tile=(64, 96, 128), swap_ab=False, cluster=(1, 1),
                                schedule=Schedule.pingpong, epilogue_schedule=e,
                                tile_scheduler=TileScheduler.persistent)
                        for e in (EpilogueSchedule.nosmem, EpilogueSchedule.tma)]
        todo.append((name, GemmSpec(m=r["m"], n=r["n"], k=r["k"], epilogue=r["epilogue"]), configs))
    return todo


if __name__ == "__main__":
    main(problems())
