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

# CUTLASS builds im2col TMA descriptors (SM90 implicit-GEMM conv) in a host-only function. Under
# NVRTC Kiln builds Params on the device, so the function becomes host-device and, instead of
# calling cuTensorMapEncodeIm2col, writes its arguments into the descriptor's 128 bytes (layout:
# IM2COL_RECORD in worker/runtime/launcher.py); the launcher encodes the real descriptor from them.
_IM2COL_RECORD = """#if defined(__CUDACC_RTC__)
namespace kiln_rtc {  // inside cute::detail
template <int Spatial>
CUTE_HOST_DEVICE void record_im2col(void* desc, uint32_t rank, cute::array<uint64_t, 5> const& shape,
    cute::array<uint64_t, 5> const& stride, cute::array<int32_t, Spatial> const& lower,
    cute::array<int32_t, Spatial> const& upper, uint32_t range_c, uint32_t range_whdn,
    cute::array<uint32_t, 5> const& traversal, uint32_t swizzle_bits, uint32_t swizzle_base, uint32_t l2promo,
    uint32_t oobfill) {
  unsigned char* b = static_cast<unsigned char*>(desc);
  for (int i = 0; i < 128; ++i) b[i] = 0;
  uint32_t* w = reinterpret_cast<uint32_t*>(b);
  w[0] = 0x4332494Bu;  // "KI2C"
  w[1] = rank; w[2] = swizzle_bits | (swizzle_base << 8) | (l2promo << 16) | (oobfill << 24);
  for (int i = 0; i < 5; ++i) w[3 + i] = static_cast<uint32_t>(shape[i]);
  uint64_t* q = reinterpret_cast<uint64_t*>(b + 32);
  for (int i = 0; i < 4; ++i) q[i] = stride[i + 1];
  int32_t* c = reinterpret_cast<int32_t*>(b + 64);
  for (int i = 0; i < 3; ++i) { c[i] = i < Spatial ? lower[i] : 0; c[3 + i] = i < Spatial ? upper[i] : 0; }
  w[22] = range_c; w[23] = range_whdn;
  for (int i = 0; i < 5; ++i) w[24 + i] = traversal[i];
}
}  // namespace kiln_rtc
#endif
"""

_PATCHES = {
    "cutlass/epilogue/fusion/sm90_visitor_load_tma_warpspecialized.hpp": [
        ("auto const& [stride_M, stride_N, stride_L] = params.dRow;",
         "auto const& stride_M = cute::get<0>(params.dRow); auto const& stride_N = cute::get<1>(params.dRow); "
         "auto const& stride_L = cute::get<2>(params.dRow);"),
        ("auto const& [stride_M, stride_N, stride_L] = params.dCol;",
         "auto const& stride_M = cute::get<0>(params.dCol); auto const& stride_N = cute::get<1>(params.dCol); "
         "auto const& stride_L = cute::get<2>(params.dCol);"),
    ],
    # NVRTC rejects the sm100 conv kernel's host-only members even uninstantiated; Kiln's sm90
    # conv template never needs them.
    "cutlass/conv/kernel/conv_universal.hpp": [
        ('#include "cutlass/conv/kernel/sm100_implicit_gemm_tma_warpspecialized.hpp"',
         "// sm100 conv kernel left out by Kiln's NVRTC overlay"),
    ],
    # Under nvcc both descriptor types are CUtensorMap; under NVRTC they were two unrelated structs,
    # so the conv mainloop's prefetch of its im2col descriptor did not compile.
    "cute/arch/copy_sm90_desc.hpp": [
        ("  using Im2ColTmaDescriptor = struct alignas(64) { char bytes[128]; };",
         "  using Im2ColTmaDescriptor = TmaDescriptor;  // Kiln overlay: one type, as under nvcc"),
    ],
    "cute/atom/copy_traits_sm90_im2col.hpp": [
        ("/// @return TMA descriptor for im2col TMA load\n", _IM2COL_RECORD + "/// @return TMA descriptor for im2col TMA load\n"),
        ("CUTE_HOST\nauto\nmake_im2col_tma_copy_desc(", "CUTE_HOST_RTC\nauto\nmake_im2col_tma_copy_desc("),
        ("  Im2ColTmaDescriptor tma_desc;\n\n#if (__CUDACC_VER_MAJOR__ >= 12)\n",
         "  Im2ColTmaDescriptor tma_desc;\n\n#if defined(__CUDACC_RTC__)\n"
         "  kiln_rtc::record_im2col<num_spatial_modes>(&tma_desc, num_total_modes, gmem_prob_shape, gmem_prob_stride,\n"
         "      tma_lower_corner, tma_upper_corner, range_c, range_whdn, tma_traversal_strides,\n"
         "      uint32_t(detail::get_tma_swizzle_bits(smem_swizzle)), uint32_t(detail::get_tma_swizzle_base(smem_swizzle)),\n"
         "      uint32_t(aux_params.l2promo_), uint32_t(aux_params.oobfill_));\n"
         "#elif (__CUDACC_VER_MAJOR__ >= 12)\n"),
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
