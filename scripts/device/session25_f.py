"""Session 25, run F: the last tile's epilogue. Runs D and E's phase clock put 1.4 us of
bert-base.attn_out's 128x192 single-consumer kernel (0.94-0.95x) after its last wgmma, 0.7 us of
square.1024's 64x128 one, 2.0 us of bert-large.ffn2's cooperative 128x256 + bias and 1.6 us of
llama7b.o_proj's 256x128: the epilogue nothing overlaps. The single-consumer kernel never got the
store-path twins the persistent ones have (space.with_epilogue_twins). Each winner beside a 64-wide
TMA-epilogue subtile (half the subtiles, barriers and stores), four subtile stores in flight
instead of CUTLASS's two, and both, where they apply; two interleaved turns, each verified first."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import main, stored_winners  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from worker.kernels.config import KernelConfig  # noqa: E402

WINNERS = Path("bench/results/gemm_h200_20261204_session24_b_search.json")
SHAPES = ("bert-base.attn_out", "square.1024", "bert-large.ffn2", "llama7b.o_proj", "decode.m64", "bert-base.ffn2")


def store_twins(base: KernelConfig) -> list[KernelConfig]:
    """The base, its 64-wide subtile twin (where 64 divides a plain kernel's N), four stores in
    flight, and both."""
    twins = [base]
    wide = base.tile[1] % 64 == 0 and not base.swap_ab
    if wide:
        twins.append(replace(base, epilogue_tile_n=64))
    twins.append(replace(base, epilogue_store_stages=4))
    if wide:
        twins.append(replace(base, epilogue_tile_n=64, epilogue_store_stages=4))
    return twins


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    todo = []
    for name, spec, winner in stored_winners(WINNERS, SHAPES):
        configs = store_twins(winner)
        if name == "square.1024":  # and its transposed tile
            configs += store_twins(replace(winner, tile=(128, 64, 64)))
        todo.append((name, spec, configs))
    return todo


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
