"""Session 19, run B: a second look at run A's leads, two turns each, every problem re-timed
interleaved with the library: the swapped 128x192 ping-pong tile (2x1 cluster) against the stored
winner on bert-base.ffn1 (fused bias + GELU and without an epilogue: the fusion cost of each),
llama7b.qkv and bert-large.qkv; and square.1024's winner at TMA L2 promotion 128, 256 and none."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import run  # noqa: E402

from bench.gemm_pairs import L2_PROMOTION_SIZES  # noqa: E402
from bench.gemm_suite import suite_specs  # noqa: E402
from service.specs import GemmSpec  # noqa: E402
from service.specs.epilogues import Epilogue  # noqa: E402
from worker.kernels.config import KernelConfig, Raster, Schedule  # noqa: E402

WINNERS = Path("scripts/device/replay_session18.json")


def problems(suite: Path) -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    winners = {r["name"]: KernelConfig.from_dict(r["winner"]) for r in json.loads(WINNERS.read_text())["shapes"]}
    specs = dict(suite_specs(suite))
    todo = []
    for name in ("bert-base.ffn1", "llama7b.qkv", "bert-large.qkv"):
        winner = winners[name]
        tall = replace(winner, tile=(128, 192, 64), swap_ab=True, schedule=Schedule.pingpong, cluster=(2, 1),
                       raster=Raster.heuristic, max_swizzle=1)
        todo.append((name, specs[name], [winner, tall]))
        if winner.epilogue is not Epilogue.none:
            bare = [replace(c, epilogue=Epilogue.none) for c in (winner, tall)]
            todo.append((f"{name}.none", specs[name].model_copy(update={"epilogue": Epilogue.none}), bare))
    square = winners["square.1024"]
    todo.append(("square.1024.l2", specs["square.1024"], [replace(square, l2_promotion=s) for s in L2_PROMOTION_SIZES]))
    return todo


if __name__ == "__main__":
    run(problems(Path(sys.argv[1])), Path(sys.argv[2]))
