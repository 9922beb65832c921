"""Session 26, run A: two launch-tail changes beside the winners they would change.

- Stream-K without its memset: session 25's phase clock put 5.8 µs of event time outside the
  stream-K winners' stamped span against 3.7-4.0 for every other winner, the launcher's memset of
  the barrier flags before each launch. Kiln's stream-K scheduler now leaves the flags zeroed
  (templates/streamk_self_clearing.cuh.j2); each stream-K winner beside its `streamk_memset` twin
  (CUTLASS's scheduler, the memset before each launch, as before).
- Per-warp TMA stores on the single-consumer kernel, which never had them: each single winner with
  a TMA epilogue beside its per-warp-store twin (the last tile's epilogue is the one-round grids'
  exposed tail: 1.4 µs of bert-base.attn_out's 13).

Two interleaved turns, each twin verified first (scripts/device/session18_b.py runs them)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import main, stored_twins  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from worker.kernels.config import KernelConfig  # noqa: E402
from worker.kernels.render import warp_stores_supported  # noqa: E402

WINNERS = Path("bench/results/gemm_h200_20261204_session24_b_search.json")
STREAMK_SHAPES = ("llama7b.up", "bf16.llama7b.up", "square.8192")
SINGLE_SHAPES = ("bert-base.attn_out", "square.1024", "bert-base.ffn2", "decode.m64", "decode.m128")


def warp_store_twins(winner: KernelConfig) -> list[KernelConfig]:
    """The winner and the same kernel storing per warp."""
    assert warp_stores_supported(winner) and not winner.warp_stores, winner.name
    return [winner, replace(winner, warp_stores=True)]


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    return (stored_twins(WINNERS, STREAMK_SHAPES, lambda winner: [winner, replace(winner, streamk_memset=True)])
            + stored_twins(WINNERS, SINGLE_SHAPES, warp_store_twins))


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
