"""`python -m bench.stream_floor`: the fastest a decode GEMM can possibly run on this GPU.

    kiln bench floor [--out result.json]      (python -m bench.stream_floor)

A decode GEMM (M <= 128 tokens) must read its whole weight W[N,K] from HBM once; nothing it does
can take less time than one kernel that only reads those bytes. This measures that floor the way
the suite times a candidate (CUDA events around each launch, operand sets rotated past twice the
L2, median of many launches) with a plain streaming-read kernel compiled by NVRTC: 16-byte
non-allocating loads, several in flight per thread, every launch geometry in GRIDS tried and the
fastest kept. cuBLAS's GEMM for the same shape runs in the same process, so the result states the
best ratio any Kiln kernel could reach against it (`ceiling_ratio` = cuBLAS time / floor), which is
what decides whether a target like "decode >= 1.15x cuBLAS" is reachable at all.
"""

from __future__ import annotations

import ctypes
import functools
import math
import re
import statistics
from typing import Any

from bench.common import read_floor_main

# The suite's decode GEMMs (M, N, K): W is N x K fp16.
DECODE = {"decode.m16": (16, 4096, 4096), "decode.m64": (64, 11008, 4096), "decode.m128": (128, 4096, 11008)}
# (blocks per SM, threads per block, 16-byte loads in flight per thread)
GRIDS = [(b, t, u) for b in (1, 2, 4, 8) for t in (256, 512, 1024) for u in (2, 4, 8) if b * t <= 2048]
# Fewer CTAs than SMs, as a GEMM with one 64-row tile per CTA has (decode.m16: 64 tiles of W): the
# floor a kernel on that many SMs cannot beat, however well it streams.
PARTIAL_GRIDS = [(ctas, t, u) for ctas in (64, 96) for t in (512, 1024) for u in (4, 8)]

SOURCE = r"""
extern "C" __global__ void stream_read(const uint4* __restrict__ p, long long vectors, unsigned* sink) {
  // every thread reads UNROLL vectors a step, strided by the grid: each load a full 128-byte line per warp
  unsigned acc = 0;  // the wrapping sum of every 32-bit word read: checked against torch before timing
  long long stride = (long long)gridDim.x * blockDim.x;
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + (UNROLL - 1) * stride < vectors; i += UNROLL * stride) {
    uint4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
                   : "=r"(v[u].x), "=r"(v[u].y), "=r"(v[u].z), "=r"(v[u].w) : "l"(p + i + u * stride));
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc += v[u].x + v[u].y + v[u].z + v[u].w;
  }
  for (; i < vectors; i += stride) { uint4 v = p[i]; acc += v.x + v.y + v.z + v.w; }
  atomicAdd(sink, acc);  // one per thread: the loads stay, and the read can be verified
}
"""


@functools.cache
def compile_read(source: str, name: str, bounds: tuple[int, int] | None) -> tuple[bytes, int]:
    """(cubin, registers per thread) of a read kernel. ptxas sizes a kernel without launch bounds for
    full occupancy (32 registers at 512 threads) and then holds only the few 16-byte loads in flight
    that those registers fit, interleaving the sums with the loads whatever the unroll says (session
    32). `bounds` = (threads, CTAs per SM) lets it keep the registers a geometry really has, so the
    loads in flight are the ones the geometry names; the register count goes into the result.
    Memoized: the GPU hosts' NVRTC returns no ptxas log for a source it has just compiled, which
    read as 0 registers in session 32's run B."""
    from worker.kernels import nvrtc

    if bounds:
        source = source.replace('extern "C" __global__ void',
                                f'extern "C" __global__ void __launch_bounds__({bounds[0]}, {bounds[1]})', 1)
    cubin, log = nvrtc.compile(source, arch="sm_90a", options=["-arch=sm_90a", "-Xptxas=-v"], name=name)
    used = re.search(r"Used (\d+) registers", log)
    return cubin, int(used.group(1)) if used else 0


def _compile(unroll: int, bounds: tuple[int, int] | None = None) -> tuple[bytes, int]:
    return compile_read(SOURCE.replace("UNROLL", str(unroll)), "stream_read.cu", bounds)


class ReadKernel:
    """A read kernel's cubin loaded through the driver; its launches run on torch's current stream
    (what every weight-read floor times beside cuBLAS)."""

    def __init__(self, compiled: tuple[bytes, int], name: bytes, max_smem: int = 0) -> None:
        from cuda.bindings import driver

        from worker.runtime.launcher import check, ensure_context

        ensure_context()
        self.driver, self.check = driver, check
        cubin, self.registers = compiled
        self.module = check(driver.cuModuleLoadData(cubin))
        self.function = check(driver.cuModuleGetFunction(self.module, name))
        if max_smem:  # launches that ask for it hold their grid at one CTA per SM, as a GEMM's would
            check(driver.cuFuncSetAttribute(
                self.function, driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, max_smem))

    def launch_with(self, blocks: int, threads: int, args: tuple[Any, ...], smem: int = 0) -> Any:
        """A closure launching the kernel with these ctypes arguments."""
        import torch

        argv = (ctypes.c_void_p * len(args))(*(ctypes.addressof(a) for a in args))

        def launch() -> None:
            keep = (args, argv)  # noqa: F841 - the pointers must outlive the call
            self.check(self.driver.cuLaunchKernel(self.function, blocks, 1, 1, threads, 1, 1, smem,
                                                  torch.cuda.current_stream().cuda_stream, ctypes.addressof(argv), 0))
        return launch


class StreamRead(ReadKernel):
    """The linear read kernel at one unroll (and, given `bounds`, compiled for that geometry)."""

    def __init__(self, unroll: int, bounds: tuple[int, int] | None = None) -> None:
        super().__init__(_compile(unroll, bounds), b"stream_read")

    def launcher(self, buf: Any, sink: Any, blocks: int, threads: int) -> Any:
        vectors = buf.numel() * buf.element_size() // 16
        return self.launch_with(blocks, threads, (ctypes.c_void_p(buf.data_ptr()), ctypes.c_longlong(vectors),
                                                  ctypes.c_void_p(sink.data_ptr())))


class LinearReference:
    """The linear read every tile-order and intake read is quoted against: session 14's fastest
    geometry on every decode shape (two CTAs of 256 threads per SM, 8 loads in flight each),
    compiled for that occupancy."""

    BLOCKS_PER_SM, THREADS, UNROLL = 2, 256, 8

    def __init__(self) -> None:
        self.kernel = StreamRead(self.UNROLL, (self.THREADS, self.BLOCKS_PER_SM))

    def launchers(self, weights: list[Any], sink: Any) -> list[Any]:
        import torch

        grid = self.BLOCKS_PER_SM * torch.cuda.get_device_properties(0).multi_processor_count
        return [self.kernel.launcher(w, sink, grid, self.THREADS) for w in weights]

    def median_us(self, weights: list[Any], sink: Any, reps: int) -> float:
        return median_us(self.launchers(weights, sink), reps)


def verified(launch: Any, buf: Any, sink: Any, expected: int | None = None) -> None:
    """The kernel read every word it should: its wrapping sum matches torch's (of buf, or
    `expected` where a read covers words more than once)."""
    import torch

    sink.zero_()
    launch()
    torch.cuda.synchronize()
    if expected is None:
        expected = int(buf.view(torch.int32).to(torch.int64).sum().item()) % (1 << 32)
    got = int(sink.item()) % (1 << 32)
    if got != expected:
        raise AssertionError(f"the read summed {got:#x}, torch {expected:#x}: the floor would be a lie")


def median_us(fns: list[Any], reps: int) -> float:
    from worker.gpu_bench import time_launches

    return statistics.median(time_launches(fns, reps))


def decode_operands(m: int, n: int, k: int) -> tuple[list[Any], list[Any]]:
    """Rotating weights of an M x N x K decode GEMM, more bytes than twice the L2 in all, and the
    cuBLAS GEMMs over them (settled): what a floor reads and the baseline it is quoted against."""
    import torch

    from worker.gpu_bench import L2_BYTES, settle

    sets = max(2, math.ceil(2 * L2_BYTES / (2 * n * k)))
    weights = [torch.randn(n, k, dtype=torch.float16, device="cuda") for _ in range(sets)]
    acts = [torch.randn(m, k, dtype=torch.float16, device="cuda") for _ in range(sets)]
    outs = [torch.empty(m, n, dtype=torch.float16, device="cuda") for _ in range(sets)]
    cublas = [(lambda a=a, w=w, o=o: torch.matmul(a, w.t(), out=o)) for a, w, o in zip(acts, weights, outs, strict=True)]
    settle(cublas)
    return weights, cublas


def measure(reps: int) -> list[dict[str, Any]]:
    import torch

    sms = torch.cuda.get_device_properties(0).multi_processor_count
    # one build per geometry: its launch bounds give ptxas the registers that geometry leaves a thread
    geometries = set(GRIDS) | {(1, t, u) for _, t, u in PARTIAL_GRIDS}
    kernels = {(b, t, u): StreamRead(u, (t, b)) for b, t, u in geometries}
    sink = torch.zeros(1, dtype=torch.int32, device="cuda")
    rows = []
    for name, (m, n, k) in DECODE.items():
        weights, cublas = decode_operands(m, n, k)
        sets = len(weights)
        reads = {}
        for blocks, threads, unroll in GRIDS:
            fns = [kernels[blocks, threads, unroll].launcher(w, sink, blocks * sms, threads) for w in weights]
            verified(fns[0], weights[0], sink)
            reads[(blocks, threads, unroll)] = median_us(fns, reps)
        best = min(reads, key=lambda g: reads[g])
        partial: dict[int, float] = {}
        for ctas, threads, unroll in PARTIAL_GRIDS:
            fns = [kernels[1, threads, unroll].launcher(w, sink, ctas, threads) for w in weights]
            partial[ctas] = min(partial.get(ctas, math.inf), median_us(fns, reps))
        cublas_us = median_us(cublas, reps)
        floor_us = median_us([kernels[best].launcher(w, sink, best[0] * sms, best[1]) for w in weights], reps)
        w_bytes = 2 * n * k
        rows.append({"shape": name, "m": m, "n": n, "k": k, "weight_bytes": w_bytes, "rotating_sets": sets,
                     "floor_us": floor_us, "floor_grid": {"blocks_per_sm": best[0], "threads": best[1],
                                                          "loads_in_flight": best[2],
                                                          "registers": kernels[best].registers},
                     "floor_tb_per_s": w_bytes / floor_us / 1e6, "cublas_us": cublas_us,
                     "cublas_tb_per_s": w_bytes / cublas_us / 1e6, "ceiling_ratio": cublas_us / floor_us,
                     "grids_us": {f"{b}x{t}x{u}": v for (b, t, u), v in reads.items()},
                     "floor_us_at_ctas": partial})
        print(f"{name:12s} floor {floor_us:6.2f} µs ({w_bytes / floor_us / 1e6:4.2f} TB/s, {best})  "
              f"cuBLAS {cublas_us:6.2f} µs ({w_bytes / cublas_us / 1e6:4.2f} TB/s)  "
              f"best possible ratio {cublas_us / floor_us:4.2f}x; on "
              + ", ".join(f"{c} CTAs {t:.2f} µs" for c, t in partial.items()), flush=True)
        del weights, cublas
    return rows


def main() -> None:
    read_floor_main(__doc__, measure, "stream_floor")


if __name__ == "__main__":
    main()
