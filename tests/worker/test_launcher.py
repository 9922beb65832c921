"""The per-call half of a launch (host only): pointer slots found by sentinel, patched per call."""

from __future__ import annotations

import struct

from worker.runtime.launcher import SENTINELS, PackedArgs, PreparedLaunch, _find_slots


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


def test_a_second_kernel_gets_its_own_argument_array_into_the_same_params() -> None:
    """Parallel split-K: the reduction's by-value params sit at meta[reduce_offset] of the same
    patched buffer; the launcher hands it an argument array pointing there, and allocates the
    workspace's zeroed part (rounded to 256 bytes) plus the partials' scratch."""
    import ctypes

    launch = PreparedLaunch(bytes(128), {}, (1, 1, 1), 128, 0, (1, 1), 100, scratch_bytes=4096, reduce=(64, 2, 256))
    args = PackedArgs.of(bytes(range(128)), launch)
    assert args.reduce_address == args.address + ctypes.sizeof(ctypes.c_void_p)
    first, second = (ctypes.c_void_p * 2).from_address(args.address)
    assert second - first == 64 and ctypes.string_at(second, 4) == bytes([64, 65, 66, 67])
    assert launch.workspace_alloc == 256 + 4096
    plain = PreparedLaunch(bytes(128), {}, (1, 1, 1), 128, 0, (1, 1), 100)
    assert PackedArgs.of(bytes(128), plain).reduce_address == 0 and plain.workspace_alloc == 100


def test_tiled_descriptors_are_encoded_with_the_contracts_l2_promotion(monkeypatch) -> None:
    """The launch packs each tiled TMA descriptor with the promotion its contract names."""
    import ctypes

    from worker.runtime import launcher

    seen = []
    blob = ctypes.create_string_buffer(128)

    class Encoded:
        def getPtr(self) -> int:  # noqa: N802 (cuda-python's name)
            return ctypes.addressof(blob)

    def encode(*args):
        seen.append(args[9].name)
        return launcher.cu.CUresult.CUDA_SUCCESS, Encoded()

    monkeypatch.setattr(launcher.cu, "cuTensorMapEncodeTiled", encode)
    desc = launcher.TmaDesc("A", 0, 2, 3, [64, 128], [2, 128], [64, 64])
    for name in ("L2_128B", "L2_256B", "NONE"):
        PreparedLaunch(bytes(128), {}, (1, 1, 1), 128, 0, (1, 1), 0, [desc], l2_promotion=name).pack({"A": 4096})
    assert seen == [
        "CU_TENSOR_MAP_L2_PROMOTION_L2_128B", "CU_TENSOR_MAP_L2_PROMOTION_L2_256B", "CU_TENSOR_MAP_L2_PROMOTION_NONE"]
