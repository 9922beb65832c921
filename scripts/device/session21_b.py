"""Session 21, run A's second half: bert-base.ffn1's fusion cost on whatever a fresh search of the
fused shapes picked (argv[1], a `kiln bench gemm` result), with and without per-warp stores, each
with its bias + GELU and without an epilogue, re-timed interleaved with the library, two turns."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from session18_b import ffn1_winner, problems, run  # noqa: E402
from session20_f import with_and_without_warp_stores  # noqa: E402

if __name__ == "__main__":
    run(problems(with_and_without_warp_stores, ffn1_winner(Path(sys.argv[1]))), Path(sys.argv[2]))
