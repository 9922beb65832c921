// Host-side check of templates/streamk_workspace.cuh.j2 and worker/kernels/streamk.py (run by
// test_streamk_workspace.py): for many problems, tiles, clusters, split counts, rasters, swizzles
// and both decompositions Kiln asks for (CUTLASS's heuristic, stream-K forced), the stream-K
// scheduler's Params are built as the kernel builds them (to_underlying_arguments → initialize),
// and the barrier offset Kiln's builder reports is printed beside the ranges CUTLASS's own
// initialize_workspace uses, with the decomposition the scheduler chose.
#include <cstdio>

#include "cutlass/gemm/kernel/tile_scheduler_params.h"

// Referenced by CUTLASS's host paths that are never called here (no GPU, no runtime library).
extern "C" cudaError_t cudaGetLastError(void) { return cudaSuccess; }
extern "C" cudaError_t cudaMemsetAsync(void*, int, size_t, cudaStream_t) { return cudaErrorNotSupported; }

#include "streamk_workspace.h"

using Params = cutlass::gemm::kernel::detail::PersistentTileSchedulerSm90StreamKParams;
using cutlass::gemm::GemmCoord;

int main() {
  int const shapes[][3] = {{1568, 512, 2048}, {2048, 1344, 2048}, {128, 4096, 11008}, {64, 11008, 4096},
                           {1024, 1024, 1024}, {4096, 768, 3072}, {8192, 8192, 8192}, {100, 100, 64},
                           {6272, 1024, 256}, {4096, 1024, 4096}};
  int const tiles[][3] = {{128, 64, 64}, {128, 128, 64}, {128, 64, 128}, {256, 128, 64}, {128, 256, 64}};
  int const clusters[][2] = {{1, 1}, {1, 2}, {2, 1}};
  int const splits_list[] = {1, 2, 4};
  using Raster = Params::RasterOrderOptions;
  Raster const rasters[] = {Raster::Heuristic, Raster::AlongM, Raster::AlongN};
  cutlass::KernelHardwareInfo hw;
  hw.device_id = 0;
  hw.sm_count = 132;
  for (auto const& s : shapes) for (auto const& t : tiles) for (auto const& c : clusters)
  for (int splits : splits_list) for (Raster raster : rasters) for (int swizzle : {1, 2})
  for (int forced : {0, 1}) {
    if (forced && splits > 1) continue;  // the builder asks for split-K whenever splits > 1
    GemmCoord const tile(t[0], t[1], t[2]), cluster(c[0], c[1], 1);
    dim3 const blocks = Params::UnderlyingParams::get_tiled_cta_shape_mnl(
        cutlass::gemm::BatchedGemmCoord(s[0], s[1], s[2], 1), tile, cluster);
    uint32_t const k_tiles = (s[2] + t[2] - 1) / t[2];
    auto const mode = splits > 1 ? Params::DecompositionMode::SplitK
                      : forced ? Params::DecompositionMode::StreamK : Params::DecompositionMode::Heuristic;
    auto const reduction = Params::ReductionMode::Deterministic;
    Params p;
    p.initialize(blocks, k_tiles, cluster, hw, splits, swizzle, raster, reduction, mode,
                 reinterpret_cast<void*>(0x100000), 1);
    size_t barrier_bytes = 0, reduction_bytes = 0;
    Params::get_workspace_component_sizes(blocks, k_tiles, tile, cluster, barrier_bytes, reduction_bytes, hw, splits,
                                          swizzle, raster, mode, reduction, /*mma_warp_groups=*/2,
                                          /*barrier_bits=*/32, /*accumulator_bits=*/32, 1);
    long long const kiln = kiln_streamk_barrier_offset(p, t[0], t[1], 32);
    std::printf("{\"m\":%d,\"n\":%d,\"k\":%d,\"tile\":[%d,%d,%d],\"cluster\":[%d,%d],\"splits\":%d,\"raster\":%d,"
                "\"swizzle\":%d,\"forced\":%d,\"kiln_barrier_offset\":%lld,\"cutlass_reduction_bytes\":%zu,"
                "\"cutlass_barrier_bytes\":%zu,\"sk_tiles\":%u,\"sk_units\":%u,\"split_divisor\":%d}\n",
                s[0], s[1], s[2], t[0], t[1], t[2], c[0], c[1], splits, static_cast<int>(raster), swizzle, forced,
                kiln, reduction_bytes, barrier_bytes, p.sk_tiles_, p.sk_units_, p.divmod_splits_.divisor);
  }
  return 0;
}
