"""Session 22, run C: decode.m128 (128x4096x11008) under cuBLAS's cluster. cuBLAS runs it with
nvjet_sm90_hsh_128x64_64x8_1x2 split-K: 128 weight rows by 64 tokens, two CTAs along the tokens
sharing (multicasting) the weight tile, K split in two. In Kiln's swapped frame that is 128x64 under
1x2, a cluster the swapped decode space never offered (SWAPPED_DECODE_CLUSTERS runs along the
weight's rows only). The weight (90 MB) outgrows the 50 MB L2, so two token tiles that read the same
weight rows at different times read them from DRAM twice; a cluster along the tokens reads them once.
Beside the session 20 winner (swapped 64x128x64, cluster split-K 2, all 128 tokens in one tile):
swapped 64x64 under 1x2 (128 CTAs, no split), 128x64 under 1x2 with parallel split-K 2 (cuBLAS's
kernel), and the plain 64x96x128 1x4 tile run B found for decode.m64. Two turns."""

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


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    r = {r["name"]: r for r in json.loads(WINNERS.read_text())["shapes"]}["decode.m128"]
    winner = KernelConfig.from_dict(r["winner"])
    base = replace(winner, raster=Raster.heuristic, max_swizzle=1, l2_promotion=KernelConfig.l2_promotion,
                   split_k=1, split_k_mode="none", tile_scheduler=TileScheduler.persistent, cluster=(1, 2),
                   swap_ab=True, schedule=Schedule.pingpong, epilogue_schedule=EpilogueSchedule.nosmem)
    configs = [winner]
    for tk in (64, 128):
        configs.append(replace(base, tile=(64, 64, tk)))
        configs.append(replace(base, tile=(64, 64, tk), epilogue_schedule=EpilogueSchedule.tma))
        for schedule in (Schedule.cooperative, Schedule.pingpong):
            configs.append(replace(base, tile=(128, 64, tk), schedule=schedule, split_k=2, split_k_mode="parallel"))
    configs.append(replace(base, tile=(64, 96, 128), swap_ab=False, cluster=(1, 4), epilogue_schedule=EpilogueSchedule.tma))
    return [("decode.m128", GemmSpec(m=r["m"], n=r["n"], k=r["k"], epilogue=r["epilogue"]), configs)]


if __name__ == "__main__":
    main(problems())
