"""Session 23, run A: decode.m16 (16x4096x4096) past its 4x1 winner. The swapped 64x16x128 under a
4x1 cluster (activation multicast) ran 13.5-13.8 µs against cuBLAS's 14.9-15.5 on 64 CTAs, half the
SMs (sessions 22 B and D); 1.15x needs about 13.0-13.4. Timed beside it, two turns: a 256-deep K
tile (half the pipeline steps per byte, the same bytes in flight), an 8x1 cluster (the activation
multicast to eight CTAs), and the cooperative schedule on the same 64-row tile count (two consumer
warpgroups on one tile where ping-pong idles one of them on a one-tile-per-CTA grid)."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import main  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from worker.kernels.config import KernelConfig, Raster  # noqa: E402

WINNERS = Path("bench/results/gemm_h200_20261204_session22_d_search.json")


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    r = {r["name"]: r for r in json.loads(WINNERS.read_text())["shapes"]}["decode.m16"]
    winner = KernelConfig.from_dict(r["winner"])
    plain = replace(winner, raster=Raster.heuristic, max_swizzle=1, l2_promotion=KernelConfig.l2_promotion)
    configs = [winner, plain,
               replace(plain, tile=(64, 16, 256)),
               replace(plain, tile=(64, 16, 256), cluster=(1, 1)),
               replace(plain, cluster=(8, 1)),
               replace(plain, tile=(64, 32, 128), cluster=(8, 1))]
    return [("decode.m16", GemmSpec(m=r["m"], n=r["n"], k=r["k"], epilogue=r["epilogue"]), configs)]


if __name__ == "__main__":
    main(problems())
