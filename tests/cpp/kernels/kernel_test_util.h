// Test helpers shared by the kernel and engine tests: random activations and random weights in any
// dtype, stored at an odd address (weights may be unaligned in the loader's buffer), with their
// exact f32 values alongside for reference computations.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "graph/half.h"
#include "graph/weights.h"
#include "kernels/matrix.h"

namespace laya::testing {

inline std::vector<float> random_floats(std::mt19937& rng, size_t n, float scale = 1.0f) {
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// A weight matrix in `dtype` with random values of about `scale`, stored one byte past an aligned
// address, plus the exact f32 value of every element.
struct RandomMatrix {
  std::vector<std::byte> storage;
  std::vector<float> values;  // [rows, cols], exactly what the stored elements mean
  kernels::MatrixRef ref;
  DType dtype = DType::kF32;
  int64_t rows = 0;
  int64_t cols = 0;

  const std::byte* data() const { return storage.data() + 1; }
};

// f32 -> 16-bit encodings by truncation: exact enough for test data, whose f32 copy is decoded back.
inline uint16_t f16_bits_near(float x) {
  // Build the half by hand: 1 sign, 5 exponent, 10 mantissa bits, truncated; values of test data
  // stay inside the half range.
  uint32_t f;
  std::memcpy(&f, &x, 4);
  const uint32_t sign = (f >> 16) & 0x8000u;
  const int exp = static_cast<int>((f >> 23) & 0xFF) - 127 + 15;
  const uint32_t mant = f & 0x7FFFFFu;
  if (exp <= 0) {
    if (exp < -10) return static_cast<uint16_t>(sign);
    return static_cast<uint16_t>(sign | ((mant | 0x800000u) >> (14 - exp)));  // subnormal
  }
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7BFFu);
  return static_cast<uint16_t>(sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13));
}

inline uint16_t bf16_bits_near(float x) {
  uint32_t f;
  std::memcpy(&f, &x, 4);
  return static_cast<uint16_t>(f >> 16);
}

inline RandomMatrix random_matrix(std::mt19937& rng, DType dtype, int64_t rows, int64_t cols,
                                  float scale = 1.0f) {
  RandomMatrix m;
  m.dtype = dtype;
  m.rows = rows;
  m.cols = cols;
  const size_t n = static_cast<size_t>(rows * cols);
  m.storage.resize(n * dtype_size(dtype) + 1);
  m.values.resize(n);
  const std::vector<float> v = random_floats(rng, n, scale);
  for (size_t i = 0; i < n; ++i) {
    std::byte* p = m.storage.data() + 1 + i * dtype_size(dtype);
    if (dtype == DType::kF32) {
      std::memcpy(p, &v[i], 4);
      m.values[i] = v[i];
    } else {
      const uint16_t bits = dtype == DType::kF16 ? f16_bits_near(v[i]) : bf16_bits_near(v[i]);
      std::memcpy(p, &bits, 2);
      m.values[i] = dtype == DType::kF16 ? f16_to_f32(bits) : bf16_to_f32(bits);
    }
  }
  m.ref = {m.data(), dtype, rows, cols};
  return m;
}

// |a - b| <= tol · max(1, |b|): the project's tolerance shape.
inline bool close(double a, double b, double tol) { return std::fabs(a - b) <= tol * std::fmax(1.0, std::fabs(b)); }

inline bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace laya::testing
