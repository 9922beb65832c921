// Kiln NVRTC overlay for <cutlass/kernel_hardware_info.h>.
// Under NVRTC CUTLASS leaves out the host queries (cudaGetDeviceProperties, occupancy) but
// GemmUniversal::to_underlying_arguments still names them. This stand-in keeps the same data
// members and makes the queries return 0; Kiln's params builder passes sm_count explicitly.
#pragma once
#include "cutlass/device_kernel.h"
#include <cute/int_tuple.hpp>
namespace cutlass {
struct KernelHardwareInfo {
  int device_id = 0;
  int sm_count = 0;
  int max_active_clusters = 0;
  dim3 cluster_shape = {0, 0, 0};
  dim3 cluster_shape_fallback = {0, 0, 0};
  static inline int query_device_multiprocessor_count(int = 0) { return 0; }
  static inline int query_device_max_active_clusters(dim3, uint32_t, void const*) { return 0; }
  template <typename Kernel> static inline int query_device_max_active_clusters() { return 0; }
};
}  // namespace cutlass
