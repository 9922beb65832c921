"""The ctypes launch path's structs match cuda.h's layout (sizes and offsets); the launch itself is
checked on a GPU by tests/gpu/test_torch_runtime.py and `python -m bench.launch_overhead`."""

from __future__ import annotations

import ctypes

from worker.runtime.driver_launch import CUlaunchAttribute, CUlaunchConfig


def test_structs_match_cuda_h() -> None:
    assert ctypes.sizeof(CUlaunchAttribute) == 72  # int id, 4 bytes pad, 64-byte union
    assert CUlaunchAttribute.value.offset == 8
    assert ctypes.sizeof(CUlaunchConfig) == 56
    assert CUlaunchConfig.hStream.offset == 32 and CUlaunchConfig.attrs.offset == 40
    assert CUlaunchConfig.numAttrs.offset == 48
