"""Session 18, run E: cuBLAS runs bert-base.attn_out and qkv with 192-row tiles (192x128: 22 x 6 =
132 tiles, one full wave; 192x192: 264, two), which CUTLASS's sm90 schedules cannot build (a 192-row
tile needs three 64-row consumer warpgroups). Swapped operands can: the kernel computes D^T, so a
128x192 tile puts 192 along the problem's M and 128 along its N, the very tiling cuBLAS uses
(attn_out 6 x 22 = 132 tiles, qkv 18 x 22 = 396 = three full waves, ffn2 132). Each shape's stored
winner beside the swapped 128x192 kernel under both schedules and both 2-CTA clusters, two turns."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from session18_b import run  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from worker.kernels.config import KernelConfig, Schedule  # noqa: E402

SHAPES = {"bert-base.attn_out": (4096, 768, 768, "none"), "bert-base.qkv": (4096, 2304, 768, "none"),
          "bert-base.ffn2": (4096, 768, 3072, "bias")}


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    winners = {r["name"]: KernelConfig.from_dict(r["winner"])
               for r in json.loads(Path("scripts/device/replay_session17.json").read_text())["shapes"]}
    todo = []
    for name, (m, n, k, epilogue) in SHAPES.items():
        winner = winners[name]
        swapped = replace(winner, tile=(128, 192, 64), swap_ab=True, raster=winner.raster.__class__("heuristic"),
                          max_swizzle=1, warp_stores=False)
        twins = [replace(swapped, schedule=s, cluster=c) for s in (Schedule.cooperative, Schedule.pingpong)
                 for c in ((1, 2), (2, 1))]
        todo.append((name, GemmSpec(m=m, n=n, k=k, epilogue=epilogue), [winner, *twins]))
    return todo


if __name__ == "__main__":
    run(problems(), Path(sys.argv[1]))
