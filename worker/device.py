"""What a worker tells the service about its GPU."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class DeviceInfo:
    gpu_name: str
    gpu_index: int
    compute_capability: tuple[int, int]
    sm_count: int
    driver: str
    cuda_version: str

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def _driver_version_string(v: int) -> str:
    return f"{v // 1000}.{(v % 1000) // 10}"


def visible_gpus() -> list[DeviceInfo]:
    """GPUs the CUDA driver sees; empty (never an exception) on a machine without one."""
    try:
        from cuda.bindings import driver as cu
    except ImportError:
        return []
    try:
        (err,) = cu.cuInit(0)
        if err != cu.CUresult.CUDA_SUCCESS:
            return []
        err, count = cu.cuDeviceGetCount()
        if err != cu.CUresult.CUDA_SUCCESS:
            return []
        err, cuda_version = cu.cuDriverGetVersion()
        out = []
        for i in range(count):
            _, dev = cu.cuDeviceGet(i)
            _, raw = cu.cuDeviceGetName(256, dev)
            attr = cu.CUdevice_attribute
            _, major = cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)
            _, minor = cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)
            _, sms = cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev)
            out.append(DeviceInfo(
                gpu_name=raw.split(b"\0", 1)[0].decode(), gpu_index=i, compute_capability=(major, minor),
                sm_count=sms, driver=_nvidia_driver() or _driver_version_string(cuda_version),
                cuda_version=_driver_version_string(cuda_version),
            ))
        return out
    except Exception:  # a broken driver install is "no GPU" for the service, not a crash
        return []


def _nvidia_driver() -> str | None:
    try:
        with open("/proc/driver/nvidia/version") as f:
            for token in f.readline().split():
                if token.count(".") >= 1 and token.replace(".", "").isdigit():
                    return token
    except OSError:
        return None
    return None
