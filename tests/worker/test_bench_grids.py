"""The experiment grids `kiln bench pairs` times (CPU: they are configs, pruned by the same rules)."""

from __future__ import annotations

from bench.gemm_pairs import decode_grid, grid
from worker.kernels.config import TileScheduler


def test_decode_grid_is_cublas_tile_under_every_cluster_and_epilogue_with_launch_time_splits() -> None:
    configs = decode_grid()
    assert {c.tile for c in configs} == {(128, 64, 64)}
    assert {c.cluster for c in configs} == {(1, 1), (1, 2)}
    assert {c.epilogue_schedule.value for c in configs} == {"nosmem", "tma"}
    split = {c.split_k for c in configs if c.tile_scheduler is TileScheduler.streamk}
    assert {1, 2, 4} <= split  # stream-K's split counts are launch arguments of one cubin
    assert len({c.compiled for c in configs}) == 4


def test_mid_size_grid_pairs_each_tile_with_both_epilogues() -> None:
    configs = grid("bias")
    for tile in {c.tile for c in configs}:
        assert {c.epilogue_schedule.value for c in configs if c.tile == tile} == {"nosmem", "tma"}
