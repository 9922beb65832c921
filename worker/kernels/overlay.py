"""Headers that Kiln puts in front of CUTLASS's on the include path, for NVRTC's sake.

- `cutlass/kernel_hardware_info.h`: a stand-in without host queries (templates/overlay/).
- `cutlass/epilogue/fusion/sm90_visitor_load_tma_warpspecialized.hpp`: CUTLASS's own file with
  two structured bindings over all-static CuTe strides rewritten as `get<i>`; NVRTC does not find
  CuTe's `std::tuple_size` for them and stops with "too many identifiers" (row/column bias
  broadcasts). Generated from the installed CUTLASS, so it follows the pinned version exactly.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

from worker.kernels.render import OVERLAY_DIR

_PATCHES = {
    "cutlass/epilogue/fusion/sm90_visitor_load_tma_warpspecialized.hpp": [
        ("auto const& [stride_M, stride_N, stride_L] = params.dRow;",
         "auto const& stride_M = cute::get<0>(params.dRow); auto const& stride_N = cute::get<1>(params.dRow); "
         "auto const& stride_L = cute::get<2>(params.dRow);"),
        ("auto const& [stride_M, stride_N, stride_L] = params.dCol;",
         "auto const& stride_M = cute::get<0>(params.dCol); auto const& stride_N = cute::get<1>(params.dCol); "
         "auto const& stride_L = cute::get<2>(params.dCol);"),
    ],
}


def _unguard(text: str, opening: str, closing: str) -> str:
    """Drop one `#if !defined(__CUDACC_RTC__)` (starting `opening`) and its `#endif` (the first
    `closing` after it), keeping the code between."""
    start = text.index(opening)
    end = text.index(closing, start + len(opening))
    guard = "#if !defined(__CUDACC_RTC__)\n"
    body = text[start:end].replace(guard, "", 1)
    return text[:start] + body + text[end + len(closing):]


# Stream-K's workspace size is computed only outside NVRTC; under NVRTC it is 0 while the kernel
# still uses the workspace (illegal address on the H200). The computation is plain arithmetic on
# the hardware info Kiln passes in, so it can run in the device-side params builder too.
_UNGUARD = {
    "cutlass/gemm/kernel/tile_scheduler_params.h": [
        ("  #if !defined(__CUDACC_RTC__)\n  static void\n  get_workspace_component_sizes(",
         "  #endif // !defined(__CUDACC_RTC__)\n"),
        ("    #if !defined(__CUDACC_RTC__)\n      get_workspace_component_sizes(", "    #endif\n"),
    ],
}


def _patched(cutlass_include: Path) -> dict[str, str]:
    out = {}
    for rel, guards in _UNGUARD.items():
        text = (cutlass_include / rel).read_text()
        for opening, closing in guards:
            if opening not in text:
                raise RuntimeError(f"CUTLASS changed: cannot patch {rel} ({opening[:60]!r} not found)")
            text = _unguard(text, opening, closing)
        out[rel] = _absolute_sibling_includes(text, cutlass_include, Path(rel).parent)
    for rel, replacements in _PATCHES.items():
        text = (cutlass_include / rel).read_text()
        for old, new in replacements:
            if old not in text:
                raise RuntimeError(f"CUTLASS changed: cannot patch {rel} ({old!r} not found)")
            text = text.replace(old, new)
        out[rel] = _absolute_sibling_includes(text, cutlass_include, Path(rel).parent)
    for path in OVERLAY_DIR.rglob("*.h"):
        out[str(path.relative_to(OVERLAY_DIR))] = path.read_text()
    return out


def _absolute_sibling_includes(text: str, include_root: Path, rel_dir: Path) -> str:
    """`#include "sibling.hpp"` would look next to the copy; point it at CUTLASS's directory."""

    def fix(match: re.Match[str]) -> str:
        name = match.group(1)
        if "/" not in name and (include_root / rel_dir / name).exists():
            return f'#include "{rel_dir / name}"'
        return match.group(0)

    return re.sub(r'#include\s+"([^"]+)"', fix, text)


def overlay_digest(cutlass_include: Path) -> str:
    h = hashlib.sha256()
    for rel, text in sorted(_patched(cutlass_include).items()):
        h.update(rel.encode() + b"\0" + text.encode() + b"\0")
    return h.hexdigest()


def prepare_overlay(cutlass_include: Path, root: Path) -> Path:
    """Write the overlay under root/<digest> (once) and return that directory."""
    files = _patched(cutlass_include)
    digest = overlay_digest(cutlass_include)[:16]
    target = root / digest
    if (target / ".complete").exists():
        return target
    tmp = root / f".{digest}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    for rel, text in files.items():
        dest = tmp / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(text)
    (tmp / ".complete").write_text(digest)
    try:
        tmp.rename(target)
    except OSError:  # another process won the race: theirs is identical
        shutil.rmtree(tmp, ignore_errors=True)
    return target
