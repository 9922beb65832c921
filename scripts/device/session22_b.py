"""Session 22, run B: cuBLAS's own decode kernels rebuilt in Kiln's space. cuBLAS runs decode.m64
(64x11008x4096) with nvjet_sm90_hsh_96x64_64x10_4x1: in its column-major frame 96 weight rows by
64 tokens, 64-deep K blocks, ten stages, four CTAs along the weight's rows sharing (multicasting)
the activation. In Kiln's row-major frame that is the plain 64x96x64 tile under a 1x4 cluster:
115 tiles, 29 four-CTA clusters (116 CTAs, within the 120 the H200 holds). Session 21 run A timed
the 96-wide tile at 1x1 only (64x96x128, 27.78/28.00 µs against the swapped winner's 28.6). Here:
64x96 at K 64 and 128 under 1x1, 1x2 and 1x4, beside the session 20 winner. decode.m16 likewise:
cuBLAS's nvjet 64x16_64x16_2x1 splitK is Kiln's swapped 64x16x64 under 2x1 with parallel split-K 2,
beside the 4x1 twin session 21 added to the space. Two turns each."""

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


def plain(winner: KernelConfig) -> KernelConfig:
    return replace(winner, raster=Raster.heuristic, max_swizzle=1, l2_promotion=KernelConfig.l2_promotion)


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    rows = {r["name"]: r for r in json.loads(WINNERS.read_text())["shapes"]}
    todo = []
    r = rows["decode.m64"]
    winner = KernelConfig.from_dict(r["winner"])
    wide = [replace(plain(winner), tile=(64, 96, tk), swap_ab=False, cluster=cluster, schedule=Schedule.pingpong,
                    epilogue_schedule=EpilogueSchedule.tma, tile_scheduler=TileScheduler.persistent,
                    split_k=1, split_k_mode="none")
            for tk in (64, 128) for cluster in ((1, 1), (1, 2), (1, 4))]
    todo.append(("decode.m64", GemmSpec(m=r["m"], n=r["n"], k=r["k"], epilogue=r["epilogue"]), [winner, *wide]))
    r = rows["decode.m16"]
    winner = KernelConfig.from_dict(r["winner"])
    base = replace(plain(winner), tile=(64, 16, 128), cluster=(1, 1), split_k=1, split_k_mode="none",
                   tile_scheduler=TileScheduler.persistent, epilogue_schedule=EpilogueSchedule.nosmem)
    configs = [winner, replace(base, cluster=(4, 1))]
    for tk in (64, 128):
        for cluster in ((2, 1), (4, 1)):
            configs.append(replace(base, tile=(64, 16, tk), cluster=cluster, split_k=2, split_k_mode="parallel"))
    todo.append(("decode.m16", GemmSpec(m=r["m"], n=r["n"], k=r["k"], epilogue=r["epilogue"]), configs))
    return todo


if __name__ == "__main__":
    main(problems())
