"""The experiment grids `kiln bench pairs` times (configs, pruned by the same rules) and the rank
correlation `bench.ranking_fit` fits the ranking model with: CPU only."""

from __future__ import annotations

from dataclasses import replace

from bench.gemm_pairs import cluster_pairs, decode_grid, grid, ktile_grid, streamk_grid
from worker.kernels.config import Decomposition, TileScheduler


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


def test_rank_correlation_averages_ties() -> None:
    """Launch-time variants of one cubin share a model cost: tied ranks must not favour either order."""
    from bench.ranking_fit import ranks, spearman

    assert ranks([3.0, 1.0, 1.0, 2.0]) == [3.0, 0.5, 0.5, 2.0]
    assert spearman([1.0, 2.0, 3.0], [10.0, 20.0, 30.0]) == 1.0
    assert spearman([1.0, 2.0, 3.0], [30.0, 20.0, 10.0]) == -1.0
    assert spearman([1.0, 2.0], [5.0, 5.0]) == 0.0  # a model that cannot tell them apart


def test_ranking_fit_reads_pairs_rows_under_their_experiment_labels() -> None:
    from bench.ranking_fit import suite_shape

    names = {"bert-base.qkv", "decode.m16"}
    assert suite_shape("bert-base.qkv.tall#1", names) == "bert-base.qkv"
    assert suite_shape("decode.m16", names) == "decode.m16"
    assert suite_shape("bert-base.ffn1.epilogue#2", names) is None


def test_ktile_grid_times_each_tile_at_both_k_depths() -> None:
    by_tile: dict[tuple, set[int]] = {}
    for c in ktile_grid():
        by_tile.setdefault((c.tile[:2], c.schedule), set()).add(c.tile[2])
    assert len(by_tile) == 4 and all(depths == {64, 128} for depths in by_tile.values())


def test_ksweep_times_each_shapes_winning_tile_alone() -> None:
    from bench.gemm_pairs import KSWEEP, ksweep_grid

    for _, tile, schedule in KSWEEP.values():
        [cfg] = ksweep_grid(tile, schedule)
        assert cfg.tile == tile and cfg.schedule is schedule and cfg.cluster == (1, 2)


def test_streamk_grid_times_each_stream_k_cubin_three_ways_beside_its_persistent_twins() -> None:
    configs = streamk_grid(1568, 512, 2048, "bias_relu")  # r50.res5.1x1c as a GEMM
    sk = [c for c in configs if c.tile_scheduler is TileScheduler.streamk]
    assert sk and all({(v.decomposition, v.split_k) for v in sk if v.compiled == c.compiled}
                      == {(Decomposition.heuristic, 1), (Decomposition.streamk, 1), (Decomposition.heuristic, 2)}
                      for c in sk)
    # the persistent twin wherever the rules keep it (fills_the_gpu drops 128x128: 52 tiles)
    twins = {c.tile for c in sk if replace(c.compiled, tile_scheduler=TileScheduler.persistent) in configs}
    assert twins == {(128, 64, 64), (128, 64, 128)}


def test_conv_pairs_grid_sets_two_and_three_ctas_per_sm_beside_the_one_cta_kind() -> None:
    """cuDNN's res2.1x1a kernel is CUTLASS 2.x 256x64x32 with 4 warps of 64x64 and 4 stages (two CTAs
    per SM); the grid has it, the 8-warp kind Kiln's search picked, and the session-9 winner."""
    import json
    from pathlib import Path

    from bench.conv_pairs import LAYERS, session9_winner, sm80_grid
    from service.specs.conv2d import Conv2dSpec

    suite = Path(__file__).resolve().parents[2] / "bench" / "results" / "conv2d_h200_20261130_session9_d.json"
    layers = {layer["name"]: layer["spec"] for layer in json.loads(suite.read_text())["layers"]}
    spec = Conv2dSpec.model_validate(layers["r50.res2.1x1a"])
    names = {c.name for c in sm80_grid(spec)}
    assert "conv2d_fprop_sm80_f16_nhwc_optimized_t256x64x32_w64x64x32_s4_z4_a888_bias_relu" in names
    assert "conv2d_fprop_sm80_f16_nhwc_optimized_t256x64x32_w32x64x32_s3_z4_a888_bias_relu" in names
    assert all(session9_winner(name) is not None for name in LAYERS)


def test_cluster_pairs_put_each_stored_winner_beside_its_four_cta_clusters() -> None:
    """Only where the rules accept the cluster: square.1024's 64x128 winner has 16 tiles along M and
    8 along N, so 2x2, 4x1 and 1x4 all apply; decode.m16's swapped 64x32 kernel has one tile of
    tokens, so nothing may share it along that side."""
    pairs = cluster_pairs()
    spec, configs = pairs["square.1024"]
    assert (spec.m, spec.n, spec.k) == (1024, 1024, 1024)
    winner, *twins = configs
    assert winner.cluster == (1, 2) and {c.cluster for c in twins} == {(2, 2), (4, 1), (1, 4)}
    assert all(replace(c, cluster=winner.cluster) == winner for c in twins)
    assert all(c.cluster[1] == 1 for c in pairs.get("decode.m16", (None, [winner]))[1][1:])
