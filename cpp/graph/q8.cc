// The q8 rounding (see q8.h): the only place a float weight becomes an 8-bit integer.
#include "graph/q8.h"

#include <algorithm>
#include <cmath>

#include "graph/half.h"

namespace laya {

int64_t quantize_row_q8(const float* w, int64_t k, int8_t* q, float* scales) {
  for (int64_t g0 = 0, g = 0; g0 < k; g0 += kQ8Group, ++g) {
    const int64_t g1 = std::min(k, g0 + kQ8Group);
    float max_abs = 0.0f;
    for (int64_t t = g0; t < g1; ++t) {
      if (!std::isfinite(w[t])) return t;
      max_abs = std::max(max_abs, std::fabs(w[t]));
    }
    const float scale = max_abs / static_cast<float>(kQ8Max);
    scales[g] = scale;
    for (int64_t t = g0; t < g1; ++t) {
      float r = scale > 0.0f ? std::nearbyint(w[t] / scale) : 0.0f;
      r = std::clamp(r, -static_cast<float>(kQ8Max), static_cast<float>(kQ8Max));
      q[t] = static_cast<int8_t>(r);
    }
  }
  return -1;
}

int64_t quantize_rows_q8(DType dtype, const std::byte* src, int64_t rows, int64_t k, int8_t* q, float* scales,
                         float* row) {
  const size_t row_bytes = static_cast<size_t>(k) * dtype_size(dtype);
  const int64_t groups = q8_groups(k);
  for (int64_t r = 0; r < rows; ++r) {
    convert_to_f32(dtype, src + static_cast<size_t>(r) * row_bytes, static_cast<size_t>(k), row);
    const int64_t bad = quantize_row_q8(row, k, q + r * k, scales + r * groups);
    if (bad >= 0) return r * k + bad;
  }
  return -1;
}

}  // namespace laya
