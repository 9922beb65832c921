"""The one NVRTC wrapper: compile(source, *, arch, options) -> (cubin, log).

Headers come from pip wheels (nvidia-cutlass, nvidia-cuda-*), so no CUDA toolkit is needed.
"""

from __future__ import annotations

import site
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from worker.kernels.overlay import prepare_overlay


class CompileError(Exception):
    """NVRTC rejected the source; `log` has its diagnostics."""

    def __init__(self, message: str, log: str) -> None:
        super().__init__(message)
        self.log = log


@dataclass(frozen=True)
class NvrtcInfo:
    version: str
    include_dirs: tuple[str, ...]


def _site_dirs() -> list[Path]:
    dirs = [Path(p) for p in site.getsitepackages()] + [Path(site.getusersitepackages())]
    dirs = [Path(p) for p in sys.path if p] + dirs  # PYTHONPATH targets (pip --target) come first
    return [d for d in dict.fromkeys(dirs) if d.is_dir()]


@lru_cache
def header_roots() -> tuple[Path, Path]:
    """(CUTLASS source root, CUDA include dir) from the installed wheels."""
    sites = _site_dirs()
    cutlass = next((sp / "cutlass_library" / "source" for sp in sites
                    if (sp / "cutlass_library" / "source" / "include" / "cutlass" / "cutlass.h").exists()), None)
    cuda = next((sp / "nvidia" / "cu13" / "include" for sp in sites
                 if all((sp / "nvidia" / "cu13" / "include" / h).exists() for h in ("cuda_fp16.h", "crt", "cccl"))), None)
    if cutlass is not None and cuda is not None:
        return cutlass, cuda
    raise RuntimeError("CUTLASS or CUDA headers not found: install kiln[compile] (nvidia-cutlass, nvidia-cuda-*)")


def overlay_root() -> Path:
    import os

    return Path(os.environ.get("KILN_DATA_DIR", ".kiln")).resolve() / "nvrtc-overlay"


@lru_cache
def include_dirs() -> tuple[str, ...]:
    """Kiln's overlay first (it replaces two CUTLASS headers), then CUTLASS, then the CUDA headers."""
    cutlass, cuda = header_roots()
    overlay = prepare_overlay(cutlass / "include", overlay_root())
    return (str(overlay), str(cutlass / "tools" / "util" / "include"), str(cutlass / "include"),
            str(cuda), str(cuda / "cccl"))


@lru_cache
def nvrtc_version() -> str:
    from cuda.bindings import nvrtc

    err, major, minor = nvrtc.nvrtcVersion()
    _check(err, "nvrtcVersion")
    return f"{major}.{minor}"


def _check(err: object, what: str) -> None:
    from cuda.bindings import nvrtc

    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise RuntimeError(f"{what} failed: {err}")


def base_options(arch: str) -> list[str]:
    opts = [f"--gpu-architecture={arch}", "-std=c++17", "-default-device", "-DNDEBUG", "--device-int128",
            "-DCUTLASS_UINT128_NATIVE", "-DCUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL=0"]
    return opts + [f"-I{d}" for d in include_dirs()]


PCH_HEAP_BYTES = 1 << 30  # CUTLASS 2.x headers need ~450 MB of precompiled-header heap


def pch_options(pch_dir: Path) -> list[str]:
    """NVRTC's automatic precompiled headers: the run of #includes every 2.x variant starts with is
    parsed once (2.5 s instead of 5-7 s per variant). Not used for 3.x kernels, whose time goes to
    template instantiation (measured: no gain) and whose headers overflow the PCH heap."""
    pch_dir.mkdir(parents=True, exist_ok=True)
    return ["-pch", f"--pch-dir={pch_dir}"]


def compile(source: str, *, arch: str, options: list[str] | None = None, name: str = "kiln.cu") -> tuple[bytes, str]:
    """Compile to a cubin for `arch` (e.g. sm_90a). Raises CompileError with the log on failure."""
    from cuda.bindings import nvrtc

    if options and "-pch" in options:
        nvrtc.nvrtcSetPCHHeapSize(PCH_HEAP_BYTES)

    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], [])
    _check(err, "nvrtcCreateProgram")
    try:
        opts = [o.encode() for o in (options if options is not None else base_options(arch))]
        (result,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        err, size = nvrtc.nvrtcGetProgramLogSize(prog)
        buf = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, buf)
        log = buf.rstrip(b"\0").decode(errors="replace")
        if result != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            errors = [line for line in log.splitlines() if "error" in line]
            raise CompileError(errors[0] if errors else str(result), log)
        err, size = nvrtc.nvrtcGetCUBINSize(prog)
        _check(err, "nvrtcGetCUBINSize")
        cubin = b" " * size
        (err,) = nvrtc.nvrtcGetCUBIN(prog, cubin)
        _check(err, "nvrtcGetCUBIN")
        return bytes(cubin), log
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
