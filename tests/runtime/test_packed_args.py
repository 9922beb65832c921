"""The per-pointer-set memo KilnGemm and KilnConv2d share (CPU: packing is host-only)."""

from __future__ import annotations

import struct

import pytest

pytest.importorskip("torch")

from worker.runtime.launcher import PreparedLaunch  # noqa: E402
from worker.runtime.torch_prepare import ShapePrep  # noqa: E402


def test_a_pointer_set_is_packed_once_and_the_oldest_sets_are_dropped() -> None:
    prep = ShapePrep(None, None)  # type: ignore[arg-type]  # packing never touches the kernel
    p = PreparedLaunch(bytes(16), {"A": [(0, 0)], "D": [(8, 16)]}, (1, 1, 1), 128, 0, (1, 1), 0)
    first = prep.packed(p, (0x1000, 0x2000), ("A", "D"))
    assert prep.packed(p, (0x1000, 0x2000), ("A", "D")) is first
    assert struct.unpack("<QQ", first.holder.raw[:16]) == (0x1000, 0x2010)  # D's slot sits 16 bytes in
    for i in range(256):
        prep.packed(p, (0x10000 + 16 * i, 0x2000), ("A", "D"))
    assert prep.packed(p, (0x1000, 0x2000), ("A", "D")) is not first  # evicted, packed again
