"""Measured ceilings per GPU model for the roofline (what the device tool recorded, not datasheets)."""

CEILINGS = {
    # 8192^3 bf16 matmul through PyTorch, 769-798 TFLOP/s; device-to-device copy ~4.3 TB/s (read + write).
    "NVIDIA H200": (790e12, 4.3e12),
}
DEFAULT = (790e12, 4.3e12)


def ceilings_for(gpu: str) -> tuple[float, float]:
    return CEILINGS.get(gpu, DEFAULT)
