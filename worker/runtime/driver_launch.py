"""cuLaunchKernelEx called straight through ctypes, with the launch config built once per shape.

cuda-python's wrapper converts its CUlaunchConfig on every call; this path keeps a C struct per
prepared shape and only sets the stream. Measured with the rounds of both paths interleaved it is
no faster on the H200 host (a KilnGemm call 16.4 µs through it, 15.4 µs through the wrapper,
F.linear 28.4 µs on that host: bench/results/overhead_h200_20261129_session3_interleaved.json), so
it stays opt-in (KILN_LAUNCH=driver). Both paths are checked on the GPU, with clusters and inside
graph capture (tests/gpu/test_torch_runtime.py); the struct layouts follow cuda.h (CUDA 12/13) and
are pinned by tests/runtime/test_driver_launch.py.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any

CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4
CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6


class CUlaunchAttribute(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", ctypes.c_uint * 16)]  # 64-byte union


class CUlaunchConfig(ctypes.Structure):
    _fields_ = [("gridDimX", ctypes.c_uint), ("gridDimY", ctypes.c_uint), ("gridDimZ", ctypes.c_uint),
                ("blockDimX", ctypes.c_uint), ("blockDimY", ctypes.c_uint), ("blockDimZ", ctypes.c_uint),
                ("sharedMemBytes", ctypes.c_uint), ("hStream", ctypes.c_void_p),
                ("attrs", ctypes.POINTER(CUlaunchAttribute)), ("numAttrs", ctypes.c_uint)]


# Read once: the per-call path must not consult the environment (~0.3 µs a call). The launcher
# reads this attribute on every launch (tests and `kiln bench overhead` flip it).
ENABLED = os.environ.get("KILN_LAUNCH") == "driver"


_LIB: Any = None


def _driver() -> Any:
    global _LIB
    if _LIB is None:
        lib = ctypes.CDLL("libcuda.so.1")
        fn = lib.cuLaunchKernelEx
        fn.argtypes = [ctypes.POINTER(CUlaunchConfig), ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        fn.restype = ctypes.c_int
        _LIB = fn
    return _LIB


class DriverLaunch:
    """One prepared shape's launch: the config struct (and its attributes) kept alive here."""

    def __init__(self, function: int, grid: tuple[int, int, int], threads: int, smem: int,
                 cluster: tuple[int, int] | None, dependent_launch: bool = False) -> None:
        self.function = function
        self.attrs = (CUlaunchAttribute * 2)()
        self.config = CUlaunchConfig(grid[0], grid[1], grid[2], threads, 1, 1, smem, None, None, 0)
        n = 0
        if cluster is not None:
            self.attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
            self.attrs[n].value[0], self.attrs[n].value[1], self.attrs[n].value[2] = cluster[0], cluster[1], 1
            n += 1
        if dependent_launch:  # programmaticStreamSerializationAllowed: the union's first int
            self.attrs[n].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
            self.attrs[n].value[0] = 1
            n += 1
        if n:
            self.config.attrs = ctypes.cast(self.attrs, ctypes.POINTER(CUlaunchAttribute))
            self.config.numAttrs = n
        self._ref = ctypes.byref(self.config)
        self._launch = _driver()

    def __call__(self, stream: int, argv_address: int) -> int:
        """Returns the CUresult (0 on success)."""
        self.config.hStream = stream
        return self._launch(self._ref, self.function, argv_address, None)
