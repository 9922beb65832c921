"""What CUTLASS 4.2's sm90 stream-K scheduler will do with a problem: run it data-parallel, split
K, or share tiles' K iterations out over the SMs (stream-K).

The scheduler decides at params-build time (`PersistentTileSchedulerSm90StreamKParams::
select_decomposition_mode`, tile_scheduler_params.h), and its `Heuristic` mode declines stream-K
whenever the last wave is at least half full: on the H200 a one-wave problem of 66-131 tiles
(res5.1x1c's 104, square.1024's 128) runs data-parallel, the same work as the persistent kernel
plus the stream-K scheduler's overhead. The ranking model needs to know that, and it is why Kiln
can ask for stream-K outright (`Decomposition.streamk`). This is a transcription of CUTLASS's
arithmetic for the arguments Kiln passes (one problem in the batch, the H200's SM count, no
occupancy query); tests/worker/test_streamk_workspace.py checks it against CUTLASS's own code
compiled for the host.
"""

from __future__ import annotations

from dataclasses import dataclass

from worker.kernels.config import Decomposition, KernelConfig, Raster

MIN_ITERS_PER_SK_UNIT = 8  # PersistentTileSchedulerSm90StreamKParams::min_iters_per_sk_unit_
MAX_SM_PER_GPC = 18  # get_grid_shape's GH100 assumption


@dataclass(frozen=True)
class StreamKPlan:
    mode: str  # "data_parallel" | "stream_k" | "split_k"
    output_tiles: int  # after rounding to the swizzle and cluster
    ctas_per_wave: int
    sk_tiles: int = 0  # tiles whose K iterations are shared (stream-K)
    sk_units: int = 0  # CTAs that share them
    splits: int = 1  # split-K's slices per tile


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _round_up(a: int, b: int) -> int:
    return _ceil_div(a, b) * b


def _log_swizzle(blocks_m: int, blocks_n: int, max_swizzle: int) -> int:
    smallest = min(blocks_m, blocks_n)
    if max_swizzle >= 8 and smallest >= 6:
        return 3
    if max_swizzle >= 4 and smallest >= 3:
        return 2
    if max_swizzle >= 2 and smallest >= 2:
        return 1
    return 0


def _max_cta_occupancy(cluster_size: int, sm_count: int) -> int:
    gpcs = 1 if sm_count < MAX_SM_PER_GPC else sm_count // MAX_SM_PER_GPC
    ctas = gpcs * (MAX_SM_PER_GPC - MAX_SM_PER_GPC % cluster_size)
    residual = 0 if sm_count < MAX_SM_PER_GPC else sm_count % MAX_SM_PER_GPC
    ctas += residual - residual % cluster_size
    return min(sm_count, ctas)


def _ctas_per_wave(blocks_m: int, blocks_n: int, cluster: tuple[int, int], raster: Raster, sm_count: int) -> int:
    """get_grid_shape as the stream-K heuristic calls it: a whole wave, not cut to the problem."""
    cm, cn = cluster
    along_n = (raster is Raster.along_n or (raster is Raster.heuristic and blocks_n <= blocks_m))
    if cm * cn == 1:
        return sm_count
    per_device = _max_cta_occupancy(cm * cn, sm_count)
    # grid (cm, per_device / cm) along N, (per_device / cn, cn) along M
    return cm * (per_device // cm) if along_n else (per_device // cn) * cn


def plan(cfg: KernelConfig, m: int, n: int, k: int, sm_count: int) -> StreamKPlan:
    """The decomposition a stream-K kernel of `cfg` (its tile, cluster and launch-time raster,
    swizzle, split count and decomposition) runs an m x n x k problem with, in the kernel's frame."""
    tm, tn, tk = cfg.tile
    cm, cn = cfg.cluster
    blocks_m, blocks_n = _round_up(_ceil_div(m, tm), cm), _round_up(_ceil_div(n, tn), cn)
    k_tiles = _ceil_div(k, tk)
    log_swizzle = _log_swizzle(blocks_m, blocks_n, cfg.max_swizzle)
    tiles_m, tiles_n = _round_up(blocks_m, (1 << log_swizzle) * cm), _round_up(blocks_n, (1 << log_swizzle) * cn)
    output_tiles = tiles_m * tiles_n
    wave = _ctas_per_wave(tiles_m, tiles_n, cfg.cluster, cfg.raster, sm_count)
    if cfg.split_k > 1:
        splits = min(cfg.split_k, sm_count, k_tiles)  # adjust_split_count
        if splits > 1:
            return StreamKPlan("split_k", output_tiles, wave, splits=splits)
        return StreamKPlan("data_parallel", output_tiles, wave)
    cluster_size = cm * cn
    full_waves, total_waves = output_tiles // wave, _ceil_div(output_tiles, wave)
    heuristic = cfg.decomposition is Decomposition.heuristic
    # get_num_sk_tiles: no quantization or too little K to share → none; the heuristic also
    # declines a tail wave at least half full; else the last two waves' tiles, whole clusters
    no_tail = full_waves == total_waves or k_tiles <= MIN_ITERS_PER_SK_UNIT
    tail_half_full = heuristic and 2 * (output_tiles - full_waves * wave) >= wave
    sk_tiles = 0
    if not (no_tail or tail_half_full):
        sk_tiles = (output_tiles - (full_waves - 1 if full_waves > 1 else 0) * wave) // cluster_size * cluster_size
    in_full_clusters = wave // cluster_size * cluster_size
    sk_units = min(in_full_clusters, (k_tiles * sk_tiles // MIN_ITERS_PER_SK_UNIT) // cluster_size * cluster_size)
    if (heuristic and sk_tiles == 0) or sk_units == 0:
        return StreamKPlan("data_parallel", output_tiles, wave)
    if heuristic and sk_tiles < sk_units and sk_units % sk_tiles == 0:
        return StreamKPlan("split_k", output_tiles, wave, sk_tiles, sk_units, splits=sk_units // sk_tiles)
    return StreamKPlan("stream_k", output_tiles, wave, sk_tiles, sk_units)
