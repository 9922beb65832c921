"""NVML through ctypes: the SM clock, power, energy counter and clock-limit reasons of one GPU.

`libnvidia-ml.so.1` ships with every NVIDIA driver, so a GPU host has it where the `nvidia-ml-py`
wheel may be missing (the device hosts have no internet); these five calls are all the power bench
needs. The GPU is found by its PCI bus id, not its index: CUDA and NVML number GPUs differently
once CUDA_VISIBLE_DEVICES or a non-default CUDA_DEVICE_ORDER is set.
"""

from __future__ import annotations

import ctypes
from typing import Any

NVML_CLOCK_SM = 1
NVML_TEMPERATURE_GPU = 0
# nvmlClocksEventReasons (nvml.h): why the clock is under the application clock. "sw_power_cap" is
# the 700 W cap an H100/H200 meets under a compute-bound GEMM.
CLOCK_LIMIT_REASONS = {
    0x1: "gpu_idle", 0x2: "applications_clocks", 0x4: "sw_power_cap", 0x8: "hw_slowdown",
    0x10: "sync_boost", 0x20: "sw_thermal", 0x40: "hw_thermal", 0x80: "hw_power_brake", 0x100: "display_clocks",
}


class NvmlError(RuntimeError):
    """NVML is missing or refused a call; the message names which."""


def reason_names(mask: int) -> list[str]:
    """The named bits of an nvmlClocksEventReasons mask, unknown bits as hex."""
    names = [name for bit, name in CLOCK_LIMIT_REASONS.items() if mask & bit]
    rest = mask & ~sum(CLOCK_LIMIT_REASONS)
    return names + ([hex(rest)] if rest else [])


def cuda_bus_id(ordinal: int) -> str:
    """The PCI bus id of CUDA device `ordinal` ("0000:1B:00.0"), a form NVML's lookup accepts."""
    from cuda.bindings import driver as cu

    cu.cuInit(0)
    _, dev = cu.cuDeviceGet(ordinal)
    err, raw = cu.cuDeviceGetPCIBusId(32, dev)
    if err != cu.CUresult.CUDA_SUCCESS:
        raise NvmlError(f"cuDeviceGetPCIBusId({ordinal}) failed: {err}")
    return bytes(raw).split(b"\0", 1)[0].decode()


class Nvml:
    """One GPU's counters. Each read is one NVML call (~10-50 µs), cheap enough to sample every few
    milliseconds from a thread beside a launch loop."""

    def __init__(self, bus_id: str, lib: Any | None = None) -> None:
        try:
            self._lib = lib or ctypes.CDLL("libnvidia-ml.so.1")
        except OSError as e:
            raise NvmlError(f"libnvidia-ml.so.1 not found (no NVIDIA driver on this host?): {e}") from e
        self._call("nvmlInit_v2")
        self._handle = ctypes.c_void_p()
        self._call("nvmlDeviceGetHandleByPciBusId_v2", bus_id.encode(), ctypes.byref(self._handle))

    def _call(self, name: str, *args: Any) -> None:
        status = getattr(self._lib, name)(*args)
        if status != 0:
            raise NvmlError(f"{name} returned NVML status {status}")

    def _uint(self, name: str, *args: Any, wide: bool = False) -> int:
        out = ctypes.c_ulonglong() if wide else ctypes.c_uint()
        self._call(name, self._handle, *args, ctypes.byref(out))
        return int(out.value)

    def sm_clock_mhz(self) -> int:
        return self._uint("nvmlDeviceGetClockInfo", ctypes.c_uint(NVML_CLOCK_SM))

    def power_mw(self) -> int:
        return self._uint("nvmlDeviceGetPowerUsage")

    def energy_mj(self) -> int:
        """Millijoules since the driver loaded (Volta and later): a window's energy is a difference."""
        return self._uint("nvmlDeviceGetTotalEnergyConsumption", wide=True)

    def temperature_c(self) -> int:
        return self._uint("nvmlDeviceGetTemperature", ctypes.c_uint(NVML_TEMPERATURE_GPU))

    def clock_limit_reasons(self) -> int:
        """nvmlDeviceGetCurrentClocksEventReasons; drivers before 535 name it ...ThrottleReasons."""
        for name in ("nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"):
            if hasattr(self._lib, name):
                return self._uint(name, wide=True)
        raise NvmlError("this NVML has no clock event reasons call")
