"""The weight-streaming kernel's shared-memory layout, checked on the CPU.

Its W ring and staged activations are read with ldmatrix into mma.m16n8k16 fragments; a wrong
row, column or swizzle there computes a different GEMM (the GPU tests catch that, on a GPU). This
replays the template's address formulas lane by lane against PTX's definitions of ldmatrix and of
the mma fragments, and checks that each 8-lane phase of every ldmatrix and cp.async touches
distinct banks. The formulas are asserted to be the template's own text, so the two cannot drift.
"""

from __future__ import annotations

import pytest

from service.specs.epilogues import Epilogue
from service.specs.gemm import DType, Layout
from worker.kernels.config import Family, KernelConfig
from worker.kernels.render import SKINNY_A_PAD, render

CHUNK = 32  # K values per chunk (kChunk)
ROW_BYTES = CHUNK * 2  # one W row of a chunk in a ring block


def swizzled(row: int, col16: int) -> int:
    """The template's swizzled(): byte offset of a 16-byte column of a 16-row ring block."""
    return row * ROW_BYTES + ((col16 ^ ((row >> 1) & 3)) << 4)


def staged_stride(piece_chunks: int) -> int:
    """Halves between staged activation rows (the template's stride)."""
    return piece_chunks * CHUNK + (SKINNY_A_PAD if piece_chunks % 2 else 8)


def test_the_formulas_are_the_templates() -> None:
    source = render(KernelConfig(Family.sm90_skinny, DType.f16, Layout.row, Layout.col, Epilogue.none, (16, 64, 64),
                                 warp=(16, 16, 64), stages=4))
    for text in ("row * (kChunk * 2) + ((col16 ^ ((row >> 1) & 3)) << 4)",  # swizzled()
                 "s.dst[i][h] = swizzled(h * 8 + g, q);",  # what each lane copies
                 "s.row[i][h] = p.B + int64_t(n < p.N ? n : 0) * p.K + q * 8;",
                 "swizzled(r + 8 * (mi & 1), 2 * half + (mi >> 1))",  # W's ldmatrix addresses
                 "((j * 8 + r) * stride + (c + u - c_piece) * kChunk + mi * 8) * 2",  # the activations'
                 "(piece_end - piece_begin) * kChunk + ((piece_end - piece_begin) % 2 ? kPad : 8)",
                 "mma(acc[i][j], w[i][0][0], w[i][0][1], w[i][0][2], w[i][0][3], b[0], b[1]);",
                 "mma(acc[i][j], w[i][1][0], w[i][1][1], w[i][1][2], w[i][1][3], b[2], b[3]);"):
        assert text in source, text


def ldmatrix_x4(memory: dict[int, tuple], addresses: list[int]) -> list[list[tuple]]:
    """PTX ldmatrix.m8n8.x4.b16: lane l gives the address of row l % 8 of matrix l // 8; thread t
    receives, in register i, matrix i's elements (row t // 4, columns 2 (t % 4) and + 1)."""
    regs = []
    for t in range(32):
        regs.append([memory[addresses[8 * i + t // 4]][2 * (t % 4): 2 * (t % 4) + 2] for i in range(4)])
    return regs


def test_w_fragments_are_mma_a_operands() -> None:
    """Lanes copy W rows g and g + 8 at column q; ldmatrix then hands every thread the A-operand
    registers mma.m16n8k16 defines: a0 = (row g, k 2q..2q+1), a1 = (row g+8, same k), a2 = (row g,
    k 2q+8..), a3 = (row g+8, k 2q+8..), for both 16-wide halves of the chunk."""
    block: dict[int, tuple] = {}  # 16-byte column address -> 8 (row, k) labels
    for lane in range(32):
        g, q = lane // 4, lane % 4
        for h in range(2):
            row = h * 8 + g
            block[swizzled(row, q)] = tuple((row, q * 8 + e) for e in range(8))
    for half in range(2):
        addresses = [swizzled(ln % 8 + 8 * ((ln // 8) & 1), 2 * half + ((ln // 8) >> 1)) for ln in range(32)]
        regs = ldmatrix_x4(block, addresses)
        for t in range(32):
            g, q, k0 = t // 4, t % 4, 16 * half
            assert regs[t][0] == ((g, k0 + 2 * q), (g, k0 + 2 * q + 1))
            assert regs[t][1] == ((g + 8, k0 + 2 * q), (g + 8, k0 + 2 * q + 1))
            assert regs[t][2] == ((g, k0 + 2 * q + 8), (g, k0 + 2 * q + 9))
            assert regs[t][3] == ((g + 8, k0 + 2 * q + 8), (g + 8, k0 + 2 * q + 9))


@pytest.mark.parametrize("piece_chunks", [1, 2, 7, 16])
def test_token_fragments_are_mma_b_operands(piece_chunks: int) -> None:
    """From the staged [token][K] rows: b0 = (k 2q..2q+1, token g), b1 = (k 2q+8.., token g) for the
    first 16 K of a chunk (registers 0, 1) and the second (registers 2, 3)."""
    stride = staged_stride(piece_chunks)
    staged = {(t * stride + k) * 2: tuple((t, k + e) for e in range(8))
              for t in range(16) for k in range(0, piece_chunks * CHUNK, 8)}
    for j in range(2):
        for chunk in range(piece_chunks):
            addresses = [((j * 8 + ln % 8) * stride + chunk * CHUNK + (ln // 8) * 8) * 2 for ln in range(32)]
            regs = ldmatrix_x4(staged, addresses)
            for t in range(32):
                q, tok, k0 = t % 4, j * 8 + t // 4, chunk * CHUNK
                assert regs[t][0] == ((tok, k0 + 2 * q), (tok, k0 + 2 * q + 1))
                assert regs[t][1] == ((tok, k0 + 2 * q + 8), (tok, k0 + 2 * q + 9))
                assert regs[t][2] == ((tok, k0 + 16 + 2 * q), (tok, k0 + 17 + 2 * q))
                assert regs[t][3] == ((tok, k0 + 24 + 2 * q), (tok, k0 + 25 + 2 * q))


def _distinct_banks(addresses: list[int]) -> bool:
    """Eight 16-byte accesses of one phase: conflict-free when they cover eight distinct 16-byte
    bank groups of a 128-byte line."""
    return len({(a % 128) // 16 for a in addresses}) == 8


def test_ring_reads_and_writes_hit_distinct_banks() -> None:
    for half in range(2):
        for mi in range(4):
            phase = [swizzled(r + 8 * (mi & 1), 2 * half + (mi >> 1)) for r in range(8)]
            assert _distinct_banks(phase), (half, mi)
    for h in range(2):  # a cp.async instruction's lanes 8p..8p+7: rows g, g+1 (+8h), columns 0..3
        for phase in range(4):
            lanes = range(8 * phase, 8 * phase + 8)
            assert _distinct_banks([swizzled(h * 8 + ln // 4, ln % 4) for ln in lanes])


@pytest.mark.parametrize("piece_chunks", [1, 2, 3, 8, 31])
def test_staged_rows_hit_distinct_banks(piece_chunks: int) -> None:
    stride = staged_stride(piece_chunks)
    for column in (0, 8, 16, 24):
        assert _distinct_banks([(r * stride + column) * 2 for r in range(8)])
