"""Session 35, run A: the compute-bound winners with the weight as wgmma's A operand.

Session 34 run A (`kiln bench power`, H100) had Kiln's compute-bound winners (o_proj, down: 256x128
cooperative under 1x2, activations as A) needing 0.99x nvjet's cycles per launch but running at a
1-2% lower SM clock under the 700 W cap: time there is energy per launch over the cap, so the gap
is energy, not scheduling. Moving the L2 traffic (no multicast, cuBLAS's 128x256 pairing) changed
neither clock nor energy. What those twins kept is the operand roles: every unswapped Kiln kernel
streams the activations through wgmma's A side (64 rows an instruction) and holds the weight on the
B side, where cuBLAS's column-major frame (out^T = W x^T) hands the weight to A. The tensor cores'
power depends on the operands' bit patterns and on which side is re-read, and the shapes where Kiln
already ties or leads under the cap (llama7b.qkv, bert-large.qkv) are exactly the swapped winners.

Here, per compute-bound shape (every winner without an epilogue that runs unswapped, and
llama7b.qkv's swapped 128x192 as the control): the stored winner beside the cooperative tiles of
both orientations with A and B exchanged, under both two-CTA clusters, two interleaved turns with
cuBLAS; and `session35_a_twins.json` (this script with `--twins`) for `kiln bench power`.

    python scripts/device/session35_a.py --list
    python scripts/device/session35_a.py --twins > scripts/device/session35_a_twins.json
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import main, stored_winners  # noqa: E402
from session33_a import cooperative  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from worker.kernels.config import KernelConfig, Raster, TileScheduler  # noqa: E402

# the H100 search (session 33 run B) and the H200 replay hold the same winners for these shapes,
# square.8192's tile and some L2 promotions aside
WINNERS = Path("bench/results/gemm_h100_20261206_session33_b_search.json")
SHAPES = ("llama7b.o_proj", "llama7b.down", "square.8192", "bert-large.attn_out", "llama7b.qkv")
# in the swapped frame M runs along the weight's rows and N along the tokens
SWAPPED_TILES = ((256, 128, 64), (128, 256, 64))
CLUSTERS = ((1, 2), (2, 1))


def swapped(winner: KernelConfig, tile: tuple[int, int, int], cluster: tuple[int, int]) -> KernelConfig:
    """`winner`'s dtype and epilogue on a swapped cooperative `tile` under the persistent scheduler:
    session 33's cooperative frame with A and B exchanged, `cluster` and CUTLASS's own raster."""
    return replace(cooperative(winner, tile, TileScheduler.persistent), cluster=cluster, swap_ab=True,
                   raster=Raster.heuristic, max_swizzle=1)


def twins(winner: KernelConfig) -> list[KernelConfig]:
    return [winner] + [swapped(winner, t, c) for t in SWAPPED_TILES for c in CLUSTERS]


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    return [(name, spec, twins(winner)) for name, spec, winner in stored_winners(WINNERS, SHAPES)]


def twin_rows() -> list[dict]:
    """`kiln bench power --extra` rows: each shape's swapped twins (its winner comes from --result)."""
    rows = {r["name"]: r for r in json.loads(WINNERS.read_text())["shapes"]}
    return [{k: rows[name][k] for k in ("name", "m", "n", "k", "dtype", "epilogue")} | {"winner": t.to_dict()}
            for name, _, configs in problems() for t in configs[1:]]


if __name__ == "__main__":
    if sys.argv[1:] == ["--twins"]:
        print(json.dumps({"shapes": twin_rows()}, indent=1))
    else:
        main(problems())
