// Exact conversions of stored 16-bit floats (IEEE half, bfloat16) to f32: the one scalar version
// in the project (laya-spec §1.5: "convert each half to float exactly"). Every F16 and BF16 value is
// representable in f32, so the conversion is exact, NaN payloads and signed zeros included. The
// kernels' SIMD twins are tested against these.
#pragma once

#include <cstddef>
#include <cstdint>

#include "graph/weights.h"

namespace laya {

float f16_to_f32(uint16_t bits);
float bf16_to_f32(uint16_t bits);

// Converts `count` little-endian elements of `dtype` starting at `src` (any alignment) to f32.
void convert_to_f32(DType dtype, const std::byte* src, size_t count, float* dst);

}  // namespace laya
