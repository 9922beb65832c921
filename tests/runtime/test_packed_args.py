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


def test_an_outgrown_workspace_stays_allocated(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bound launcher or a captured graph keeps the workspace address it was built with: when a
    larger shape needs a larger workspace, the old one must not go back to the allocator."""
    import torch

    sizes = iter((1024, 4096))

    class _Kernel:
        def prepare(self, **_: object) -> PreparedLaunch:
            return PreparedLaunch(bytes(16), {}, (1, 1, 1), 128, 0, (1, 1), 0, scratch_bytes=next(sizes))

    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: False)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda d: type("P", (), {"multi_processor_count": 132}))
    monkeypatch.setattr(torch.cuda, "current_stream", lambda d: type("S", (), {"cuda_stream": 0}))
    prep = ShapePrep(_Kernel(), None)  # type: ignore[arg-type]
    cpu = torch.device("cpu")
    small = prep.get((1,), {}, cpu, alpha=1.0, beta=0.0, label="small")
    first = prep.workspace(small)
    big = prep.get((2,), {}, cpu, alpha=1.0, beta=0.0, label="big")
    assert prep.workspace(big) != first
    assert [t.data_ptr() for t in prep.workspaces.outgrown] == [first]  # still held, never freed


def test_self_clearing_kernels_get_a_zeroed_workspace_per_shape(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stream-K kernel that leaves its barriers zeroed is launched with no memset, so no other
    shape may write into its workspace: each shape gets its own, zeroed once; a kernel that the
    launcher clears before each launch keeps sharing one."""
    import torch

    class _Kernel:
        def __init__(self, self_clearing: bool) -> None:
            self.self_clearing = self_clearing

        def prepare(self, **_: object) -> PreparedLaunch:
            return PreparedLaunch(bytes(16), {}, (1, 1, 1), 128, 0, (1, 1), 4096, workspace_clear=1024,
                                  self_clearing=self.self_clearing)

    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: False)
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda d: type("P", (), {"multi_processor_count": 132}))
    monkeypatch.setattr(torch.cuda, "current_stream", lambda d: type("S", (), {"cuda_stream": 0}))
    cpu = torch.device("cpu")
    own = ShapePrep(_Kernel(True), None)  # type: ignore[arg-type]
    first, second = (own.get((i,), {}, cpu, alpha=1.0, beta=0.0, label=str(i)) for i in (1, 2))
    assert own.workspace(first) != own.workspace(second)
    assert own.workspace(first) == own.workspace(first)  # stable: bound launchers and graphs keep it
    assert all(int(t.count_nonzero()) == 0 and t.numel() == 4096 for t in own.workspaces.own.values())
    shared = ShapePrep(_Kernel(False), None)  # type: ignore[arg-type]
    first, second = (shared.get((i,), {}, cpu, alpha=1.0, beta=0.0, label=str(i)) for i in (1, 2))
    assert shared.workspace(first) == shared.workspace(second)
