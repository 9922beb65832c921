// Kiln: what NVRTC needs before any CUTLASS header.
// NVRTC's libcu++-backed std lacks a few traits CUTLASS uses; alias them from cuda::std.
// Kept in a header (not inline in the generated source) so every variant starts with the same
// run of #includes, which NVRTC's automatic precompiled headers can then reuse across variants.
#pragma once
#include <cuda/std/type_traits>
namespace std {
using cuda::std::void_t;
using cuda::std::is_pointer_v;
using cuda::std::is_const_v;
using cuda::std::is_integral_v;
}  // namespace std
