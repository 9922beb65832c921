"""Session 34, run A: is the compute-bound gap (o_proj, down, qkv at 0.98-0.99x cuBLAS) power?

`kiln bench power` on run B's H100 winners (session 33; o_proj, down and qkv have the same winners on
the H200) beside cuBLAS, plus two twins of the o_proj/down winner that move the L2 traffic at the
same tile work: cuBLAS's H100 pairing (128x256 under 2x1; session 33 run C: ties the winner, 23%
more L2 sectors than nvjet) and the winner without its cluster (256x128 1x1: no multicast, the most
L2 sectors). If energy per launch rises with the L2 sectors and the clock falls with it at equal
cycles, the gap is power. square.8192 and bert-large.qkv (Kiln ahead) are the controls.

    python scripts/device/session34_a.py > scripts/device/session34_a_twins.json   # on the CPU host
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session33_a import cooperative  # noqa: E402

from worker.kernels.config import KernelConfig, Raster, TileScheduler  # noqa: E402

WINNERS = Path("bench/results/gemm_h100_20261206_session33_b_search.json")
SHAPES = ("llama7b.o_proj", "llama7b.down", "llama7b.qkv", "bert-large.qkv", "square.8192")
TWINNED = ("llama7b.o_proj", "llama7b.down")


def twins(winner: KernelConfig) -> list[KernelConfig]:
    pairing = replace(cooperative(winner, (128, 256, 64), TileScheduler.persistent), cluster=(2, 1),
                      raster=Raster.heuristic, max_swizzle=1)
    return [pairing, replace(winner, cluster=(1, 1))]


def twin_rows() -> list[dict]:
    rows = [r for r in json.loads(WINNERS.read_text())["shapes"] if r["name"] in TWINNED]
    return [{k: r[k] for k in ("name", "m", "n", "k", "dtype", "epilogue")} | {"winner": t.to_dict()}
            for r in rows for t in twins(KernelConfig.from_dict(r["winner"]))]


if __name__ == "__main__":
    print(json.dumps({"shapes": twin_rows()}, indent=1))
