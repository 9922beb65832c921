"""Session 38, run A (pairs part): does decode.m64 stream faster on more SMs once B arrives in one box?

Session 37 run A timed decode.m64's 88-row tiles (126 CTAs on 132 SMs where the winner's 96-row tile
makes 115: 8% fewer weight rows per SM) 5% slower than the 96-row tile on the H100. Those kernels
loaded each stage of the weight in eleven to twenty-two TMA boxes of 1-2 KB, one per 8x64 swizzle
atom, because an odd-width tile's B is laid out K first (render.k_first_b_atoms). They now load it
in one four-dimensional box per stage through a hierarchical view of B
(templates/one_box_b_mainloop.cuh.j2), as the even tiles do. The same twins as session 37 run A:
the 88-row tile under 1x2 and 1x1, and under the register epilogue, beside the winner (96 rows,
1x4) and its 1x2 twin, two interleaved turns, each verified first (scripts/device/session18_b.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import main, stored_twins  # noqa: E402
from session37_a import WINNERS, m64_twins  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from worker.kernels.config import KernelConfig  # noqa: E402


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    return stored_twins(WINNERS, ("decode.m64",), m64_twins)


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
