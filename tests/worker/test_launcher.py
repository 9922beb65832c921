"""The per-call half of a launch (host only): pointer slots found by sentinel, patched per call."""

from __future__ import annotations

import struct

from worker.runtime.launcher import SENTINELS, PreparedLaunch, _find_slots


def test_slots_are_found_with_their_offsets_and_patched() -> None:
    params = bytearray(256)
    struct.pack_into("<Q", params, 8, SENTINELS["A"])
    struct.pack_into("<Q", params, 64, SENTINELS["D"])
    struct.pack_into("<Q", params, 200, SENTINELS["workspace"] + 4096)  # a derived pointer
    struct.pack_into("<Q", params, 96, 12345)  # a stride, not a pointer
    slots = _find_slots(bytes(params), set())
    assert slots == {"A": [(8, 0)], "D": [(64, 0)], "workspace": [(200, 4096)]}
    launch = PreparedLaunch(bytes(params), slots, (1, 1, 1), 128, 0, (1, 1), 0)
    packed = launch.pack({"A": 0x7000_0000, "D": 0x9000_0000, "workspace": 0xA000_0000})
    assert struct.unpack_from("<Q", packed, 8)[0] == 0x7000_0000
    assert struct.unpack_from("<Q", packed, 64)[0] == 0x9000_0000
    assert struct.unpack_from("<Q", packed, 200)[0] == 0xA000_0000 + 4096
    assert struct.unpack_from("<Q", packed, 96)[0] == 12345


def test_descriptor_bytes_are_not_scanned() -> None:
    params = bytearray(256)
    struct.pack_into("<Q", params, 64, SENTINELS["B"])
    assert _find_slots(bytes(params), {range(64, 192)}) == {}
