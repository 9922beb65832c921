"""Session 33, run C: cuBLAS's own tile and cluster on the H100 (128x256 under a 2x1 cluster).

Run B's Nsight Compute pass had cuBLAS on the H100 running `nvjet_sm90_hsh_128x256_64x4_2x1_coopA`
on llama7b.o_proj and down: the same DRAM bytes as Kiln's 256x128 1x2 winner with 23-25% fewer L2
read sectors. Kiln's search never timed that pairing there: equal-cost clusters pair CTAs along N
(`prune`'s ranking), so 128x256 came only under 1x2. Here, per shape (run B's H100 winners): the
winner, the cooperative 128x256 and 256x128 tiles under both 2-CTA clusters, each verified, two
interleaved turns beside cuBLAS."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import main, stored_winners  # noqa: E402
from session33_a import cooperative  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from worker.kernels.config import KernelConfig, Raster, TileScheduler  # noqa: E402

WINNERS = Path("bench/results/gemm_h100_20261206_session33_b_search.json")
SHAPES = ("llama7b.o_proj", "llama7b.down", "llama7b.qkv", "bert-large.ffn2", "bert-large.attn_out")


def twins(winner: KernelConfig) -> list[KernelConfig]:
    out = [winner]
    for tile in ((128, 256, 64), (256, 128, 64)):
        for cluster in ((2, 1), (1, 2)):
            twin = replace(cooperative(winner, tile, TileScheduler.persistent), cluster=cluster,
                           raster=Raster.heuristic, max_swizzle=1)
            if twin.name not in {c.name for c in out}:
                out.append(twin)
    return out


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    return [(name, spec, twins(winner)) for name, spec, winner in stored_winners(WINNERS, SHAPES)]


if __name__ == "__main__":
    main(problems())  # `--list` prints each problem's configs
