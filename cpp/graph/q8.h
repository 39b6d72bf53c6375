// q8 weights (docs/q8-format.md): symmetric 8-bit integers, one F32 scale per group of kQ8Group
// elements along a row (the input dimension of a Linear weight, the width of an embedding row).
// quantize_row_q8 is the project's one q8 rounding: the converter (`laya-wasm quantize`, through
// the wasm module) and the load-time path (`load(..., { weights: 'q8' })`) both call it, so they
// agree bit for bit. Reading back is value = float(q) · scale, one f32 rounding, in every kernel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "graph/weights.h"

namespace laya {

inline constexpr int8_t kQ8Max = 127;  // q ∈ [-127, 127]: symmetric, -128 never written

// Quantizes the row w[0, k): for each group, scale = max|w| / 127 (f32), q = round(w / scale) to the
// nearest, ties to even, clamped to [-127, 127]; a group of zeros gets scale 0 and q 0. Writes
// q[0, k) and scales[0, q8_groups(k)). Returns the index of the first value that is not finite
// (nothing is meaningful then), or -1.
int64_t quantize_row_q8(const float* w, int64_t k, int8_t* q, float* scales);

// Quantizes `rows` rows of `k` elements of `dtype` (little-endian, any alignment) at `src` into
// q[rows · k] and scales[rows · q8_groups(k)], converting each row to f32 into `row` (k floats)
// first. Returns the flat index of the first non-finite value, or -1.
int64_t quantize_rows_q8(DType dtype, const std::byte* src, int64_t rows, int64_t k, int8_t* q, float* scales,
                         float* row);

// A scale stored little-endian at any alignment.
inline float load_scale(const std::byte* p) {
  float v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace laya
