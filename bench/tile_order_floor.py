"""`python -m bench.tile_order_floor`: how fast the weight streams when read in a GEMM's tile order.

    kiln bench tile-floor [--out result.json] [--reps 200]

Session 28's profile put Kiln's decode winners and cuBLAS's decode kernels at 70-72% of the H200's
DRAM bandwidth, where `kiln bench floor`'s plain read of the same weight reaches ~90%. The two read
the bytes in different orders: the floor walks W linearly, a GEMM gives each CTA a block of R weight
rows (its tile along N) and walks them along K one k-tile at a time, so every step touches R rows
22 KB apart (decode.m128: K = 11008) for 128 or 256 bytes each, and split-K puts several such walks
on the same rows at once. This reads W exactly that way with plain 16-byte loads (no tensor cores,
no shared memory, nothing but the access order) and, beside it, the same walk over W stored blocked
(each CTA's k-tiles contiguous, as a pre-packed weight would be), in the same process as the linear
floor and cuBLAS. Whichever order holds ~90% says where the decode kernels' missing bandwidth is:
in the tile order itself (then a pre-packed weight layout is the lever) or in the kernels.

Sweep: rows per CTA (32, 64, 128), k-tile bytes per row (128, 256), K slices (1, 2, 4), row-major or
blocked, 32-128 KB of loads in flight per CTA (DEPTHS), and one CTA per SM (as a GEMM's shared memory
forces) or as many as fit. The one-CTA-per-SM rows by bytes in flight are the read's Little's-law
curve: how deep a decode kernel's pipeline must be to stream W at a given rate. Until session 32
they were not: compiled without launch bounds, ptxas gave each thread 32 registers and kept ~6 of
its loads in flight at every depth; one-CTA-per-SM reads now carry __launch_bounds__(threads, 1)
and each result its register count. Each geometry is verified (the wrapping sum of every word read equals torch's)
before it is timed.
"""

from __future__ import annotations

import ctypes
import itertools
from dataclasses import asdict, dataclass
from typing import Any

from bench.common import read_floor_main
from bench.stream_floor import DECODE, ReadKernel, compile_read, median_us, verified

# (threads, 16-byte loads in flight per thread): 32 KB to 128 KB of loads in flight per CTA, the
# range a GEMM's pipeline stages hold (threads x unroll <= 8192 keeps the registers under 128)
DEPTHS = ((256, 8), (256, 16), (256, 32), (512, 8), (512, 16))
ONE_PER_SM_SMEM = 120 * 1024  # dynamic shared memory that leaves room for one CTA per SM (228 KB)

SOURCE = r"""
extern "C" __global__ void tile_read(const uint4* __restrict__ p, int row_blocks, int rows, int kvec_row,
                                     int step_vec, int steps_per_slice, int blocked, unsigned* sink) {
  // CTA (row block rb, K slice sl) reads rows [rb*rows, (rb+1)*rows) over its slice's k-steps, a
  // step being step_vec 16-byte vectors of each row. Thread t takes vectors t, t+T, ... of each step
  // (PER_STEP of them), so a warp reads whole 128-byte runs of a row, as a TMA box of the k-tile
  // would; UNROLL / PER_STEP steps' loads are in flight at once. Offsets are fixed per thread, so
  // the loop is a load and an add per vector, nothing that could bound the read but the memory.
  constexpr int STEPS_AT_ONCE = UNROLL / PER_STEP;
  const int rb = blockIdx.x % row_blocks, sl = blockIdx.x / row_blocks;
  const long long per_step = (long long)rows * step_vec;
  long long offset[PER_STEP];
#pragma unroll
  for (int q = 0; q < PER_STEP; ++q) {
    const int j = threadIdx.x + q * blockDim.x;
    offset[q] = blocked ? j : (long long)(j / step_vec) * kvec_row + j % step_vec;
  }
  const long long first_step = (long long)sl * steps_per_slice;
  const long long step_stride = blocked ? per_step : step_vec;
  const uint4* base = p + (long long)rb * rows * kvec_row + first_step * step_stride;
  unsigned acc = 0;  // the wrapping sum of every 32-bit word read: checked against torch before timing
  for (int s0 = 0; s0 < steps_per_slice; s0 += STEPS_AT_ONCE) {
    uint4 v[UNROLL];
#pragma unroll
    for (int d = 0; d < STEPS_AT_ONCE; ++d)
#pragma unroll
      for (int q = 0; q < PER_STEP; ++q) {
        uint4& x = v[d * PER_STEP + q];
        x = make_uint4(0, 0, 0, 0);
        if (s0 + d < steps_per_slice)
          asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
                       : "=r"(x.x), "=r"(x.y), "=r"(x.z), "=r"(x.w) : "l"(base + (s0 + d) * step_stride + offset[q]));
      }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc += v[u].x + v[u].y + v[u].z + v[u].w;
  }
  atomicAdd(sink, acc);
}
"""


@dataclass(frozen=True)
class Walk:
    """One way of reading W[N, K] in tiles."""

    rows: int  # weight rows per CTA (the GEMM tile along N)
    step_bytes: int  # bytes of each row per k-step (a 64- or 128-deep fp16 k-tile)
    slices: int  # K slices walked at once (split-K)
    blocked: bool  # each CTA's k-tiles contiguous (a pre-packed weight) instead of W's own rows
    threads: int
    unroll: int  # 16-byte loads in flight per thread
    one_per_sm: bool  # as a GEMM's shared memory forces

    @property
    def per_step(self) -> int:
        """16-byte loads each thread issues per k-step."""
        return self.rows * self.step_bytes // 16 // self.threads

    def fits(self, n: int, k: int) -> bool:
        step_vec = self.step_bytes // 16
        return n % self.rows == 0 and (k // 8) % (step_vec * self.slices) == 0 and self.buildable

    @property
    def buildable(self) -> bool:
        """Every thread has whole loads in each k-step, and whole k-steps in flight."""
        return self.per_step >= 1 and self.unroll % self.per_step == 0

    @property
    def bytes_in_flight(self) -> int:
        """Per CTA: what bounds a streaming read's rate by Little's law."""
        return self.threads * self.unroll * 16

    def label(self) -> str:
        return (f"{self.rows}r_{self.step_bytes}B_k{self.slices}_{'blocked' if self.blocked else 'rowmajor'}"
                f"_{self.threads}x{self.unroll}{'_1cta' if self.one_per_sm else ''}")


WALKS = [Walk(r, b, s, bl, t, u, one) for r, b, s, bl, (t, u), one in itertools.product(
    (32, 64, 128), (128, 256), (1, 2, 4), (False, True), DEPTHS, (True, False))]


def compile_tile_read(unroll: int, per_step: int, bounds: tuple[int, int] | None = None) -> tuple[bytes, int]:
    """One CTA per SM is compiled with launch bounds saying so, or ptxas keeps 32 registers and a
    few loads in flight whatever the unroll (bench.stream_floor.compile_read)."""
    source = SOURCE.replace("PER_STEP", str(per_step)).replace("UNROLL", str(unroll))
    return compile_read(source, "tile_read.cu", bounds)


class TileRead(ReadKernel):
    """The tile-order read at one unroll and loads per step, compiled for one CTA per SM or any."""

    def __init__(self, walk: Walk) -> None:
        bounds = (walk.threads, 1) if walk.one_per_sm else None
        super().__init__(compile_tile_read(walk.unroll, walk.per_step, bounds), b"tile_read", ONE_PER_SM_SMEM)

    @staticmethod
    def key(walk: Walk) -> tuple[int, int, int, bool]:
        return walk.unroll, walk.per_step, walk.threads, walk.one_per_sm

    def launcher(self, w: Any, sink: Any, walk: Walk) -> Any:
        n, k = w.shape
        step_vec = walk.step_bytes // 16
        row_blocks = n // walk.rows
        steps_per_slice = (k // 8) // step_vec // walk.slices
        args = (ctypes.c_void_p(w.data_ptr()), ctypes.c_int(row_blocks), ctypes.c_int(walk.rows),
                ctypes.c_int(k // 8), ctypes.c_int(step_vec), ctypes.c_int(steps_per_slice),
                ctypes.c_int(int(walk.blocked)), ctypes.c_void_p(sink.data_ptr()))
        return self.launch_with(row_blocks * walk.slices, walk.threads, args,
                                ONE_PER_SM_SMEM if walk.one_per_sm else 0)


def measure(reps: int) -> list[dict[str, Any]]:
    import torch

    from bench.stream_floor import LinearReference, decode_operands

    kernels = {key: TileRead(w) for key, w in {TileRead.key(w): w for w in WALKS if w.buildable}.items()}
    linear = LinearReference()
    sink = torch.zeros(1, dtype=torch.int32, device="cuda")
    rows = []
    for name, (m, n, k) in DECODE.items():
        weights, cublas = decode_operands(m, n, k)
        sets = len(weights)
        w_bytes = 2 * n * k
        cublas_us = median_us(cublas, reps)
        linear_us = linear.median_us(weights, sink, reps)
        walks = []
        for walk in (w for w in WALKS if w.fits(n, k)):
            kernel = kernels[TileRead.key(walk)]
            fns = [kernel.launcher(w, sink, walk) for w in weights]
            verified(fns[0], weights[0], sink)
            us = median_us(fns, reps)
            walks.append({**asdict(walk), "label": walk.label(), "ctas": n // walk.rows * walk.slices,
                          "bytes_in_flight_per_cta": walk.bytes_in_flight, "registers": kernel.registers, "us": us,
                          "tb_per_s": w_bytes / us / 1e6, "of_linear": linear_us / us})
        walks.sort(key=lambda r: r["us"])
        rows.append({"shape": name, "m": m, "n": n, "k": k, "weight_bytes": w_bytes, "rotating_sets": sets,
                     "cublas_us": cublas_us, "linear_us": linear_us, "linear_grid": "2/SM x 256 threads x 8 loads",
                     "walks": walks})
        print(f"{name:12s} cuBLAS {cublas_us:6.2f} µs  linear read {linear_us:6.2f} µs "
              f"({w_bytes / linear_us / 1e6:4.2f} TB/s)", flush=True)
        for depth in sorted({r["bytes_in_flight_per_cta"] for r in walks}):
            at_depth = [r for r in walks if r["one_per_sm"] and not r["blocked"]
                        and r["bytes_in_flight_per_cta"] == depth]
            print(f"  1 CTA/SM, row-major, {depth // 1024:3d} KB in flight per CTA: best {at_depth[0]['label']} "
                  f"{at_depth[0]['us']:.2f} µs ({at_depth[0]['of_linear']:.2f} of linear)", flush=True)
        for order in ("rowmajor", "blocked"):
            for one in (True, False):
                best = [r for r in walks if (r["blocked"] == (order == "blocked")) and r["one_per_sm"] == one][:3]
                print(f"  {order:8s} {'1 CTA/SM' if one else 'any occ.'}: "
                      + ", ".join(f"{r['label']} {r['us']:.2f} µs ({r['of_linear']:.2f} of linear)" for r in best),
                      flush=True)
        del weights, cublas
    return rows


def main() -> None:
    read_floor_main(__doc__, measure, "tile_order_floor")


if __name__ == "__main__":
    main()
