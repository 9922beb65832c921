"""Session 24, run E: two CTAs of the single-consumer kernel on each SM, for the mid-size grids of
more than one round (the suite's 0.98-0.99 shapes). A 64-row tile with four 64-deep stages (~105 KB
of shared memory with its TMA epilogue) leaves room for a second CTA on the SM if ptxas keeps it at
128 registers a thread or fewer, and then one CTA's epilogue and prologue overlap the other's
mainloop, as ping-pong's two consumer warpgroups do inside one CTA, with two producers. Each twin's
co-resident CTAs per GPU are printed first (the driver's count, 1x1 clusters), then two turns of the
usual verified, interleaved timing beside each shape's session 23 winner."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from session18_b import main, stored_winners  # noqa: E402

from service.specs import GemmSpec  # noqa: E402
from worker.kernels.config import KernelConfig, Raster, Schedule, TileScheduler  # noqa: E402

WINNERS = Path("bench/results/gemm_h200_20261204_session23_b_search.json")
SHAPES = ("bert-large.attn_out", "bert-base.ffn2", "bert-large.ffn2", "llama7b.o_proj")


def two_per_sm(winner: KernelConfig, tile: tuple[int, int, int], stages: int) -> KernelConfig:
    return replace(winner, tile=tile, stages=stages, cluster=(1, 1), schedule=Schedule.single,
                   tile_scheduler=TileScheduler.none, swap_ab=False, warp_stores=False, raster=Raster.heuristic,
                   max_swizzle=1, l2_promotion=KernelConfig.l2_promotion, split_k=1, split_k_mode="none")


def problems() -> list[tuple[str, GemmSpec, list[KernelConfig]]]:
    return [(name, spec, [winner, two_per_sm(winner, (64, 128, 64), 4), two_per_sm(winner, (64, 128, 64), 3),
                          two_per_sm(winner, (64, 64, 128), 3)])
            for name, spec, winner in stored_winners(WINNERS, SHAPES)]


def occupancy(todo: list[tuple[str, GemmSpec, list[KernelConfig]]]) -> None:
    """CTAs of each twin the GPU holds at once (132 = one per SM)."""
    import tempfile

    from tests.gpu.test_gpu_tuning import _candidate, _compiled_entry, _problem

    with tempfile.TemporaryDirectory() as tmp:
        for name, spec, configs in todo:
            for cfg in configs[1:]:
                entry = _compiled_entry(cfg, Path(tmp))
                prob = _problem(cfg.epilogue.value, spec.m, spec.n, spec.k)
                c = _candidate(entry, prob)
                prepared = c.prepared(prob.launch_shape(prob.make(prob.full_shape, "rand"), entry["config"]))
                ctas = c.kernel.max_active_clusters((1, 1), prepared.threads, prepared.smem)
                print(f"occupancy {name} {cfg.variant_name} smem {prepared.smem} co-resident CTAs {ctas}", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--occupancy"]:
        occupancy(problems())
    else:
        main(problems())
