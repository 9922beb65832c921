"""Session 44, run B (pairs part): where else does the 192x256 split-N tile pay? Session 44 run A
(an H100) timed it on llama7b.qkv (528 tiles, four whole waves of 132) 0.4% ahead of the stored
ping-pong 128x192 winner (274.1 / 274.5 us against 275.2 / 276.0), tied square.8192 and lost o_proj
(176 tiles, 1.33 waves): its 64x128 wgmma atoms read shared memory at the 256x128 cooperative
winners' rate, and a 192x256 tile reads 30% less from L2 per multiply-add than 128x192. The suite's
other shapes whose grids it fills: bert-large.qkv and bert-base.ffn1 (4096 rows: 22 x 12 = 264
tiles, two whole waves), bert-large.ffn1 (352, 2.67) and llama7b.up (473, 3.58), with their fused
epilogues; llama7b.qkv again on whichever card comes. Each winner of session 26 run C beside its
192x256 twins and cuBLAS, two interleaved turns, each verified first."""

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
WIDE = (192, 256, 64)
TWINS: dict[str, list[tuple[tuple[int, int, int], tuple[int, int], int]]] = {
    "bert-large.qkv": [(WIDE, (1, 2), 1), (WIDE, (2, 1), 1)],
    "bert-base.ffn1": [(WIDE, (1, 2), 1), (WIDE, (2, 1), 1)],
    "bert-large.ffn1": [(WIDE, (1, 2), 1)],
    "llama7b.up": [(WIDE, (1, 2), 1)],
    "llama7b.qkv": [(WIDE, (1, 2), 1)],
}


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    """What compile_twins.py and the run ask for: each winner and its 192x256 twins."""
    return split_n_problems(TWINS)


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
