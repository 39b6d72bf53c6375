// Test support: the value of a binary16 / bfloat16 encoding computed from its fields with ldexp,
// the textbook definition, independent of the bit manipulation in graph/half.cc. NaNs are left to
// the callers (the result is an infinity for them).
#pragma once

#include <cmath>
#include <cstdint>

namespace laya::testing {

inline double half_reference_value(uint16_t bits, int mantissa_bits, int exponent_bias) {
  const int exponent_max = (1 << (15 - mantissa_bits)) - 1;
  const int exponent = (bits >> mantissa_bits) & exponent_max;
  const int mantissa = bits & ((1 << mantissa_bits) - 1);
  double magnitude;
  if (exponent == exponent_max) {
    magnitude = INFINITY;
  } else if (exponent == 0) {
    magnitude = std::ldexp(mantissa, 1 - exponent_bias - mantissa_bits);
  } else {
    magnitude = std::ldexp((1 << mantissa_bits) + mantissa, exponent - exponent_bias - mantissa_bits);
  }
  return (bits & 0x8000) ? -magnitude : magnitude;
}

inline double f16_reference(uint16_t bits) { return half_reference_value(bits, 10, 15); }
inline double bf16_reference(uint16_t bits) { return half_reference_value(bits, 7, 127); }

}  // namespace laya::testing
