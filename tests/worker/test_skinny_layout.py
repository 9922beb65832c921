"""The weight-streaming kernel's fragment layout, checked on the CPU.

Each lane loads 16-byte runs of K (8q..8q+7 of a 32-wide chunk) of its W rows g and g + 8 and of
token g's staged activations, and hands those registers to mma.m16n8k16 as they are: the K order
inside a chunk is permuted, identically for both operands. A wrong pairing computes a different
GEMM (the GPU tests catch that, on a GPU); this replays the template's register use lane by lane
against PTX's definition of the mma fragments, checks that every (row, token) dot product covers
each K of the chunk exactly once, and that each 8-lane phase of the staged reads hits distinct
banks. The formulas are asserted to be the template's own text, so the two cannot drift.
"""

from __future__ import annotations

from collections import Counter

import pytest

from service.specs.epilogues import Epilogue
from service.specs.gemm import DType, Layout
from worker.kernels.config import Family, KernelConfig
from worker.kernels.render import SKINNY_A_PAD, render

CHUNK = 32  # K values per chunk (kChunk)


def row_stride(piece_chunks: int) -> int:
    """Halves between staged activation rows (the template's row_stride)."""
    return piece_chunks * CHUNK + (0 if piece_chunks % 2 else SKINNY_A_PAD)


def test_the_formulas_are_the_templates() -> None:
    source = render(KernelConfig(Family.sm90_skinny, DType.f16, Layout.row, Layout.col, Epilogue.none, (16, 64, 64),
                                 warp=(16, 16, 64), stages=2))
    for text in ("r.row[i][h] = p.B + int64_t(n < p.N ? n : 0) * p.K + q * 8;",  # W rows g, g + 8 at run q
                 "int const n = n0 + i * 16 + h * 8 + g;",
                 "load_streamed(r.row[i][h] + (c + u) * kChunk)",
                 "staged + ((j * 8 + g) * stride + (c + u - c_piece) * kChunk + q * 8) * 2",  # token g at run q
                 "piece_chunks * kChunk + (piece_chunks % 2 ? 0 : kPad)",
                 "mma(acc[i][j], lo.x, hi.x, lo.y, hi.y, b.x, b.y);",
                 "mma(acc[i][j], lo.z, hi.z, lo.w, hi.w, b.z, b.w);"):
        assert text in source, text


def lane_registers(g: int, q: int) -> tuple[list[tuple], list[tuple], list[tuple]]:
    """What lane (g, q) holds for one chunk: W rows g and g + 8 and token g, each as four 32-bit
    registers of two (operand row, K) labels, as the template loads them (16 bytes from K 8q)."""
    def run(row: int) -> list[tuple]:
        return [((row, 8 * q + 2 * r), (row, 8 * q + 2 * r + 1)) for r in range(4)]
    return run(g), run(g + 8), run(g)


def test_every_dot_product_covers_the_chunk_once() -> None:
    """PTX mma.m16n8k16 (f16): a0 = (row g, k 2q..2q+1), a1 = (row g+8, same k), a2 = (row g,
    k 2q+8..), a3 = (row g+8, k 2q+8..); b0 = (k 2q.., col g), b1 = (k 2q+8.., col g);
    D(row, col) = sum over the 16 k of A(row, k) B(k, col). Replayed with the template's registers,
    every output (W row, token) must sum W[row][k] * A[token][k] over each of the chunk's 32 K
    exactly once."""
    a_of: dict[tuple[int, int], tuple] = {}  # (mma row, mma k) -> W label, per mma
    b_of: dict[tuple[int, int], tuple] = {}  # (mma k, mma col) -> token label
    products: dict[tuple[int, int], Counter] = {(r, t): Counter() for r in range(16) for t in range(8)}
    for first, second in ((0, 1), (2, 3)):  # the two mma of a chunk: registers x, y then z, w
        for lane in range(32):
            g, q = lane // 4, lane % 4
            lo, hi, tok = lane_registers(g, q)
            for e in range(2):
                a_of[(g, 2 * q + e)] = lo[first][e]
                a_of[(g + 8, 2 * q + e)] = hi[first][e]
                a_of[(g, 2 * q + 8 + e)] = lo[second][e]
                a_of[(g + 8, 2 * q + 8 + e)] = hi[second][e]
                b_of[(2 * q + e, g)] = tok[first][e]
                b_of[(2 * q + 8 + e, g)] = tok[second][e]
        for row in range(16):
            for col in range(8):
                for k in range(16):
                    (w_row, w_k), (t_row, t_k) = a_of[(row, k)], b_of[(k, col)]
                    assert (w_row, t_row) == (row, col)  # the fragment holds this output's operands
                    assert w_k == t_k, (row, col, k)  # ... at the same physical K
                    products[(row, col)][w_k] += 1
    for counts in products.values():
        assert counts == Counter(range(CHUNK))


@pytest.mark.parametrize("piece_chunks", [1, 2, 3, 8, 31, 38])
def test_staged_reads_hit_distinct_banks(piece_chunks: int) -> None:
    """A 16-byte shared load runs in four phases of eight lanes: lanes 8p..8p+7 are tokens 2p, 2p + 1
    at runs q = 0..3; conflict-free when they cover the eight 16-byte bank groups of 128 bytes."""
    stride = row_stride(piece_chunks)
    assert stride * 2 % 16 == 0  # every row starts 16-byte aligned
    for chunk in range(piece_chunks):
        for phase in range(4):
            lanes = range(8 * phase, 8 * phase + 8)
            addresses = [((ln // 4) * stride + chunk * CHUNK + (ln % 4) * 8) * 2 for ln in lanes]
            assert len({(a % 128) // 16 for a in addresses}) == 8, (chunk, phase)


def test_warps_along_k_are_threads_and_names() -> None:
    """Tile K / warp K warps share each row group's K: a 64-row CTA of 16-row warps, four along K,
    is 16 warps, and says so in its name."""
    cfg = KernelConfig(Family.sm90_skinny, DType.f16, Layout.row, Layout.col, Epilogue.none, (16, 64, 256),
                       warp=(16, 16, 64), stages=2)
    assert cfg.threads == 512 and "_w16_kw4_u2_" in cfg.name
    source = render(cfg)
    assert "constexpr int kKWarps = 4;" in source and "constexpr int kRowWarps = kTileN / kRowsPerWarp;" in source
