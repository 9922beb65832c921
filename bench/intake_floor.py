"""`python -m bench.intake_floor`: what a decode kernel's per-SM intake costs a weight read.

    kiln bench intake-floor [--out result.json] [--reps 200]

`kiln bench tile-floor` (session 30, H200) has decode.m16's and decode.m64's winners streaming the
weight as fast as a plain read in their tile order does, and decode.m128's at 0.85 of the linear
read where its order's plain read at one CTA per SM reaches 0.95. The m128 winner (swapped 64x64x64)
differs in what each SM takes in: besides its 64 weight rows, the 64 tokens' activations of every
k-block, from L2 (360 MB into the SMs for 90 MB of weight, about twice m64's bytes per SM per
clock). This reads each decode winner's tiles the way its CTAs take them in, with plain 16-byte
loads at one CTA per SM: CTA (row block, token tile) reads its weight rows and, at every k-step,
its token tile's activation rows (L2-resident after the first touch), at the winner's tile sizes and
with the activation rows halved and left out. If the full intake reads at ~0.85 of linear and the
weight alone at ~0.95, m128's gap is the intake, and the lever is fewer activation bytes per weight
byte into each SM. Every variant of a shape keeps the same weight loads in flight (its activation loads
come on top), and a row block's token tiles are launched together so they share the weight's DRAM
read through L2 as the winner's 1x2 cluster shares it through multicast: session 32's first run (an
H100) had neither, and its weight-only reads were depth-bound (0.62-0.75 of linear, far under
tile-floor's plain reads in the same run). Each read is verified (the wrapping sum of every word
read equals torch's) before it is timed, in the same process as the linear read and cuBLAS.

Session 32 run C (H100): m128's winner intake reads at 0.79 of linear, 0.88 weight-only, and the
128-row two-slice intake at 0.88; m64's intake costs 2%, m16's nothing. The winner kernel itself
runs at 0.83 (its weight multicast beats this plain read), and 128x64 cluster split-K kernels lose
4-17% to it (README, Known gaps).
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import asdict, dataclass
from typing import Any

from bench.common import read_floor_main
from bench.stream_floor import DECODE, ReadKernel, compile_read, median_us, verified
from bench.tile_order_floor import ONE_PER_SM_SMEM

THREADS = 512
# Weight loads in flight per thread, the same in every variant of a shape (64 KB a CTA, where
# tile-floor's one-CTA-per-SM curve reaches 0.93-0.94 of linear): the activation rows add their loads
# on top, as a GEMM's stages hold both operands' k-tiles, so the variants differ in intake alone.
WEIGHT_LOADS_IN_FLIGHT = 8

SOURCE = r"""
extern "C" __global__ void intake_read(const uint4* __restrict__ w, const uint4* __restrict__ a, int n,
                                       int w_rows, int tokens, int a_rows, int tiles, int slices, int kvec_row,
                                       int step_vec, unsigned* sink) {
  // CTA (row block rb, token tile tt) walks K one step (step_vec 16-byte vectors of each row) at a
  // time over its w_rows weight rows (fewer in the last block) and the first a_rows of its
  // token tile's `tokens` activation rows, as a GEMM CTA's k-tiles take them in; STEPS steps' loads are in flight at once.
  // A row block's token tiles are neighbours in launch order, so they run at once and share the
  // weight's DRAM read through L2, as the winner's cluster shares it through multicast. With K in
  // `slices` slices (split-K), CTA sl of a tile walks only its slice's steps.
  const int tt = blockIdx.x % tiles, sl = (blockIdx.x / tiles) % slices, rb = blockIdx.x / (tiles * slices);
  const int rows_here = min(w_rows, n - rb * w_rows);
  const int w_vecs = rows_here * step_vec, a_vecs = a_rows * step_vec;
  const uint4* wb = w + (long long)rb * w_rows * kvec_row;
  const uint4* ab = a + (long long)tt * tokens * kvec_row;
  long long w_off[PW], a_off[PA_DIM];
  bool w_on[PW], a_on[PA_DIM];
#pragma unroll
  for (int q = 0; q < PW; ++q) {
    const int j = threadIdx.x + q * blockDim.x;
    w_on[q] = j < w_vecs;
    w_off[q] = (long long)(j / step_vec) * kvec_row + j % step_vec;
  }
#pragma unroll
  for (int q = 0; q < PA; ++q) {
    const int j = threadIdx.x + q * blockDim.x;
    a_on[q] = j < a_vecs;
    a_off[q] = (long long)(j / step_vec) * kvec_row + j % step_vec;
  }
  const int steps = kvec_row / step_vec / slices, first_step = sl * steps;
  unsigned acc = 0;  // the wrapping sum of every 32-bit word read: checked against torch before timing
  for (int s0 = 0; s0 < steps; s0 += STEPS) {
    uint4 v[STEPS * (PW + PA)];
#pragma unroll
    for (int d = 0; d < STEPS; ++d) {
      const long long k_off = (long long)(first_step + s0 + d) * step_vec;
      const bool live = s0 + d < steps;
#pragma unroll
      for (int q = 0; q < PW + PA; ++q) {
        uint4& x = v[d * (PW + PA) + q];
        x = make_uint4(0, 0, 0, 0);
        const bool weight = q < PW;
        const bool on = live && (weight ? w_on[q] : a_on[q - PW]);
        const uint4* p = weight ? wb + w_off[q] + k_off : ab + a_off[q - PW] + k_off;
        if (on)
          asm volatile("ld.global.nc.v4.u32 {%0,%1,%2,%3}, [%4];"
                       : "=r"(x.x), "=r"(x.y), "=r"(x.z), "=r"(x.w) : "l"(p));
      }
    }
#pragma unroll
    for (int u = 0; u < STEPS * (PW + PA); ++u) acc += v[u].x + v[u].y + v[u].z + v[u].w;
  }
  atomicAdd(sink, acc);
}
"""


@dataclass(frozen=True)
class Intake:
    """One decode winner's per-CTA intake: weight rows and activation rows per k-step."""

    w_rows: int  # the tile's weight rows (swapped kernels: its M; plain ones: its N)
    tokens: int  # the tile's tokens: the grid's token tiles
    a_rows: int  # activation rows each CTA reads of its token tile (tokens: the winner's intake; 0: none)
    step_bytes: int  # bytes of each row per k-step (the k-tile: 64 deep = 128 B)
    slices: int = 1  # K slices per tile (split-K), each on its own CTA

    def loads_per_step(self, rows: int) -> int:
        return math.ceil(rows * self.step_bytes // 16 / THREADS)

    @property
    def pw(self) -> int:
        return self.loads_per_step(self.w_rows)

    @property
    def pa(self) -> int:
        return self.loads_per_step(self.a_rows)

    @property
    def steps_in_flight(self) -> int:
        return math.ceil(WEIGHT_LOADS_IN_FLIGHT / self.pw)

    def grid(self, m: int, n: int) -> tuple[int, int]:
        """(weight row blocks, token tiles)."""
        return math.ceil(n / self.w_rows), math.ceil(m / self.tokens)

    def ctas(self, m: int, n: int) -> int:
        blocks, tiles = self.grid(m, n)
        return blocks * tiles * self.slices

    def label(self) -> str:
        split = f"_k{self.slices}" if self.slices > 1 else ""
        return f"{self.w_rows}w_{self.a_rows}of{self.tokens}a_{self.step_bytes}B{split}"


# Each winner's tile and grid (the replay at ddb3658), its CTAs reading all, half and none of their
# token tile's activations.
WINNER_TILES = {"decode.m16": (64, 16, 256), "decode.m64": (96, 64, 256), "decode.m128": (64, 64, 128)}
INTAKES = {name: [Intake(w, t, a, b) for a in (t, t // 2, 0)] for name, (w, t, b) in WINNER_TILES.items()}
# The lever for decode.m128 if its intake is the bound: 128 weight rows per CTA halve the activation
# bytes per weight byte, and two K slices keep 128 CTAs (what a cluster split-K kernel would read).
INTAKES["decode.m128"] += [Intake(128, 64, a, 128, slices=2) for a in (64, 0)]


def compile_intake_read(intake: Intake) -> tuple[bytes, int]:
    """Launch bounds of one CTA per SM, so ptxas keeps every load of the declared depth in flight."""
    source = (SOURCE.replace("STEPS", str(intake.steps_in_flight)).replace("PW", str(intake.pw))
              .replace("PA_DIM", str(max(1, intake.pa))).replace("PA", str(intake.pa)))
    return compile_read(source, "intake_read.cu", (THREADS, 1))


def expected_sum(w: Any, a: Any, intake: Intake, m: int) -> int:
    """Every weight word once per token tile, every activation word once per weight row block."""
    import torch

    blocks, tiles = intake.grid(m, w.shape[0])
    total = int(w.view(torch.int32).to(torch.int64).sum().item()) * tiles
    for tt in range(tiles):
        read = a[tt * intake.tokens: tt * intake.tokens + intake.a_rows]
        total += int(read.contiguous().view(torch.int32).to(torch.int64).sum().item()) * blocks
    return total % (1 << 32)


class IntakeRead(ReadKernel):
    """One intake geometry's read, one CTA per SM."""

    def __init__(self, intake: Intake) -> None:
        super().__init__(compile_intake_read(intake), b"intake_read", ONE_PER_SM_SMEM)
        self.intake = intake

    def launcher(self, w: Any, a: Any, sink: Any, m: int) -> Any:
        n, k = w.shape
        _, tiles = self.intake.grid(m, n)
        args = (ctypes.c_void_p(w.data_ptr()), ctypes.c_void_p(a.data_ptr()), ctypes.c_int(n),
                ctypes.c_int(self.intake.w_rows), ctypes.c_int(self.intake.tokens), ctypes.c_int(self.intake.a_rows),
                ctypes.c_int(tiles), ctypes.c_int(self.intake.slices), ctypes.c_int(k // 8),
                ctypes.c_int(self.intake.step_bytes // 16), ctypes.c_void_p(sink.data_ptr()))
        return self.launch_with(self.intake.ctas(m, n), THREADS, args, ONE_PER_SM_SMEM)


def measure(reps: int) -> list[dict[str, Any]]:
    import torch

    from bench.stream_floor import LinearReference, decode_operands

    linear = LinearReference()
    sink = torch.zeros(1, dtype=torch.int32, device="cuda")
    rows = []
    for name, (m, n, k) in DECODE.items():
        weights, cublas = decode_operands(m, n, k)
        acts = [torch.randn(m, k, dtype=torch.float16, device="cuda") for _ in weights]
        w_bytes = 2 * n * k
        cublas_us = median_us(cublas, reps)
        linear_us = linear.median_us(weights, sink, reps)
        reads = []
        for intake in INTAKES[name]:
            kernel = IntakeRead(intake)
            fns = [kernel.launcher(w, a, sink, m) for w, a in zip(weights, acts, strict=True)]
            verified(fns[0], weights[0], sink, expected_sum(weights[0], acts[0], intake, m))
            us = median_us(fns, reps)
            blocks, tiles = intake.grid(m, n)
            ctas = intake.ctas(m, n)
            intake_bytes = tiles * w_bytes + tiles * blocks * intake.a_rows * k * 2
            reads.append({**asdict(intake), "label": intake.label(), "ctas": ctas,
                          "registers": kernel.registers, "us": us,
                          "of_linear": linear_us / us, "intake_bytes": intake_bytes,
                          "intake_gb_per_s_per_cta": intake_bytes / ctas / (us * 1e3)})
        rows.append({"shape": name, "m": m, "n": n, "k": k, "weight_bytes": w_bytes, "cublas_us": cublas_us,
                     "linear_us": linear_us, "reads": reads})
        print(f"{name:12s} cuBLAS {cublas_us:6.2f} µs  linear read {linear_us:6.2f} µs; one CTA per SM: "
              + ", ".join(f"{r['label']} ({r['ctas']} CTAs) {r['us']:.2f} µs = {r['of_linear']:.2f} of linear, "
                          f"{r['intake_gb_per_s_per_cta']:.0f} GB/s a CTA" for r in reads), flush=True)
        del weights, acts, cublas
    return rows


def main() -> None:
    read_floor_main(__doc__, measure, "intake_floor")


if __name__ == "__main__":
    main()
