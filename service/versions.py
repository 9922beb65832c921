"""Versions of everything that changes what a kernel is: part of every spec key and compile-cache key.

Read from installed package metadata rather than by loading NVRTC, so the API server (which
never compiles) computes the same keys as the workers without cuda-python's native libraries.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache
from importlib import metadata

# Bump when templates, pruning or launch conventions change in a way that invalidates cached kernels.
KERNEL_GENERATOR_VERSION = "2"  # 2: sm90 epilogues without a residual drop the beta * C term

# The versions pyproject.toml pins for the `compile` extra: what a worker built from this tree uses.
PINNED_CUTLASS = "4.2.0.0"
PINNED_NVRTC = "13.0.88"


def _installed(dist: str, fallback: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return fallback


@dataclass(frozen=True)
class Toolchain:
    generator: str
    cutlass: str
    nvrtc: str

    def as_dict(self) -> dict[str, str]:
        return asdict(self)

    @property
    def fingerprint(self) -> str:
        return f"gen{self.generator}-cutlass{self.cutlass}-nvrtc{self.nvrtc}"


@lru_cache
def toolchain() -> Toolchain:
    return Toolchain(
        generator=KERNEL_GENERATOR_VERSION,
        cutlass=_installed("nvidia-cutlass", PINNED_CUTLASS),
        nvrtc=_installed("nvidia-cuda-nvrtc", PINNED_NVRTC),
    )
