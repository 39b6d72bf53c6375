#include "graph/half.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "graph/half_reference.h"

namespace {

bool is_nan_encoding(uint16_t bits, int mantissa_bits) {
  const int exponent_max = (1 << (15 - mantissa_bits)) - 1;
  return ((bits >> mantissa_bits) & exponent_max) == exponent_max && (bits & ((1 << mantissa_bits) - 1)) != 0;
}

// Checks all 65536 encodings; returns how many differ from the reference.
template <class Convert>
int count_mismatches(Convert convert, int mantissa_bits, int exponent_bias) {
  int mismatches = 0;
  for (uint32_t i = 0; i < 65536; ++i) {
    const auto bits = static_cast<uint16_t>(i);
    const float got = convert(bits);
    uint32_t got_bits;
    std::memcpy(&got_bits, &got, sizeof got_bits);  // no std::bit_cast in Emscripten 3.1.6
    bool ok;
    if (is_nan_encoding(bits, mantissa_bits)) {
      // A NaN keeps its sign and its payload, shifted into the top of the f32 mantissa.
      const uint32_t payload = bits & ((1u << mantissa_bits) - 1);
      ok = std::isnan(got) && std::signbit(got) == ((bits & 0x8000) != 0) &&
           (got_bits & 0x7FFFFFu) == payload << (23 - mantissa_bits);
    } else {
      const double want = laya::testing::half_reference_value(bits, mantissa_bits, exponent_bias);
      ok = static_cast<double>(got) == want && std::signbit(got) == std::signbit(want);
    }
    if (!ok) ++mismatches;
  }
  return mismatches;
}

}  // namespace

TEST_CASE("every half value converts to the f32 its fields define") {
  CHECK(count_mismatches(laya::f16_to_f32, 10, 15) == 0);
}

TEST_CASE("every bfloat16 value converts to the f32 its fields define") {
  CHECK(count_mismatches(laya::bf16_to_f32, 7, 127) == 0);
}

TEST_CASE("a few well-known half encodings") {
  CHECK(laya::f16_to_f32(0x3C00) == 1.0f);
  CHECK(laya::f16_to_f32(0xC000) == -2.0f);
  CHECK(laya::f16_to_f32(0x7BFF) == 65504.0f);
  CHECK(laya::f16_to_f32(0x0001) == std::ldexp(1.0f, -24));
  CHECK(laya::f16_to_f32(0x03FF) == std::ldexp(1023.0f, -24));
  CHECK(laya::f16_to_f32(0x0400) == std::ldexp(1.0f, -14));
  CHECK(std::signbit(laya::f16_to_f32(0x8000)));
  CHECK(laya::bf16_to_f32(0x3F80) == 1.0f);
}

TEST_CASE("buffers convert from any alignment, element by element") {
  const uint16_t halves[] = {0x3C00, 0xC000, 0x0001, 0x7C00};
  std::vector<std::byte> bytes(1 + sizeof halves);
  std::memcpy(bytes.data() + 1, halves, sizeof halves);  // deliberately misaligned
  float out[4];
  laya::convert_to_f32(laya::DType::kF16, bytes.data() + 1, 4, out);
  for (int i = 0; i < 4; ++i) CHECK(out[i] == laya::f16_to_f32(halves[i]));

  const float floats[] = {1.5f, -0.25f};
  std::vector<std::byte> fbytes(3 + sizeof floats);
  std::memcpy(fbytes.data() + 3, floats, sizeof floats);
  float fout[2];
  laya::convert_to_f32(laya::DType::kF32, fbytes.data() + 3, 2, fout);
  CHECK(fout[0] == 1.5f);
  CHECK(fout[1] == -0.25f);

  const uint16_t brains[] = {0x3F80, 0xBF00};
  float bout[2];
  laya::convert_to_f32(laya::DType::kBF16, reinterpret_cast<const std::byte*>(brains), 2, bout);
  CHECK(bout[0] == 1.0f);
  CHECK(bout[1] == -0.5f);
}
