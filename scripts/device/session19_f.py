"""Session 19, run F: bert-base.ffn1's fusion cost on the swapped 128x192 ping-pong tile under both
2-CTA clusters (the search's pick is 1x2, run B measured 2x1): each kernel with its bias + GELU and
without an epilogue, every problem re-timed interleaved with the library, in two turns."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from session18_b import ffn1_winner, problems, run  # noqa: E402

from worker.kernels.config import KernelConfig  # noqa: E402

WINNERS = Path("scripts/device/replay_session19.json")


def both_clusters(winner: KernelConfig) -> list[KernelConfig]:
    return [replace(winner, cluster=c) for c in ((1, 2), (2, 1))]


if __name__ == "__main__":
    run(problems(both_clusters, ffn1_winner(WINNERS)), Path(sys.argv[1]))
