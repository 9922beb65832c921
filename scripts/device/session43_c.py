"""Session 43, run C (pairs part): is the split-N kernel's loss its 64-wide wgmma atoms? Session 43
run A timed nvjet's "coopB" tiles as Kiln's cooperative kernel with its warpgroups side by side
along N (KernelConfig.wg_split_n): 192x128 and 320x128 (64x64x16 atoms) lost 7-20%, 192x192
(64x96x16) 8-19%. A 64x64x16 wgmma reads 4 KB of shared memory in its 32 clocks, the SM's 128 B a
clock, before the TMA loads write theirs; a 64x128x16 atom reads 6 KB in 64. The 192x256 split-N
tile (each warpgroup 192x128 in three 64x128 atoms, 192 accumulators a thread) is the test: on
llama7b.qkv it makes 11 x 48 = 528 tiles, four whole waves of 132 SMs (128x256: 768, 5.8 waves),
on square.8192 43 x 32 = 1376. Each winner of session 26 run C beside its 192x256 twins and
cuBLAS, two interleaved turns, each verified first."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import main  # noqa: E402
from session42_a import problems as split_n_problems  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from worker.kernels.config import KernelConfig  # noqa: E402

# shape -> (tile, cluster, epilogue store stages) twins; one 64x256 subtile store in flight leaves
# three 56 KB stages in the 227 KB of shared memory.
TWINS: dict[str, list[tuple[tuple[int, int, int], tuple[int, int], int]]] = {
    "llama7b.qkv": [((192, 256, 64), (1, 2), 1), ((192, 256, 64), (2, 1), 1)],
    "llama7b.o_proj": [((192, 256, 64), (1, 2), 1)],
    "square.8192": [((192, 256, 64), (1, 2), 1)],
}


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    """What compile_twins.py and the run ask for: each winner and its 192x256 twins."""
    return split_n_problems(TWINS)


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
