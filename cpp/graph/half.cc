// Bit-level conversions: no floating-point arithmetic, so the results do not depend on rounding
// modes, flush-to-zero or the compiler's choice of instructions.
#include "graph/half.h"
#include "util/float_bits.h"

#include <bit>
#include <cstring>

namespace laya {

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian and is read in place");


float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1Fu;
  uint32_t mantissa = h & 0x3FFu;
  uint32_t bits;
  if (exponent == 0x1F) {
    bits = sign | 0x7F800000u | (mantissa << 13);  // infinities and NaNs, payload kept
  } else if (exponent != 0) {
    bits = sign | ((exponent + (127 - 15)) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {
    // A half subnormal is mantissa · 2^-24; in f32 it is normal: shift the leading one up to the
    // implicit bit, lowering the exponent once per shift.
    int shift = std::countl_zero(mantissa) - 21;  // 21 = 32 - 11: the implicit bit's position
    mantissa = (mantissa << shift) & 0x3FFu;
    bits = sign | (static_cast<uint32_t>(127 - 14 - shift) << 23) | (mantissa << 13);
  }
  return float_from_bits(bits);
}

float bf16_to_f32(uint16_t h) { return float_from_bits(static_cast<uint32_t>(h) << 16); }

void convert_to_f32(DType dtype, const std::byte* src, size_t count, float* dst) {
  switch (dtype) {
    case DType::kF32:
      std::memcpy(dst, src, count * sizeof(float));
      return;
    case DType::kF16:
    case DType::kBF16: {
      const bool half = dtype == DType::kF16;
      for (size_t i = 0; i < count; ++i) {
        uint16_t bits;
        std::memcpy(&bits, src + 2 * i, sizeof bits);
        dst[i] = half ? f16_to_f32(bits) : bf16_to_f32(bits);
      }
      return;
    }
    case DType::kI8:  // the integers themselves; a q8 matrix's scales are applied by its reader
      for (size_t i = 0; i < count; ++i) dst[i] = static_cast<float>(static_cast<int8_t>(src[i]));
      return;
  }
}

}  // namespace laya
