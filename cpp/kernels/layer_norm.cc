// The scalar LayerNorm; the SIMD twin is in layer_norm_simd128.cc, and kernels/kernel_table.h picks
// between them.
#include "kernels/layer_norm.h"

#include <cmath>

namespace laya::kernels {

void layer_norm_f32_scalar(const LayerNormArgs& a, int64_t row_begin, int64_t row_end) {
  const int64_t d = a.width;
  for (int64_t r = row_begin; r < row_end; ++r) {
    const float* x = a.x + r * d;
    float* out = a.out + r * d;
    double sum = 0.0;
    for (int64_t j = 0; j < d; ++j) sum += x[j];
    const double mean = sum / static_cast<double>(d);
    double sq = 0.0;
    for (int64_t j = 0; j < d; ++j) {
      const double c = x[j] - mean;
      sq += c * c;
    }
    const double rstd = 1.0 / std::sqrt(sq / static_cast<double>(d) + a.eps);
    for (int64_t j = 0; j < d; ++j) {
      double y = (x[j] - mean) * rstd * a.w[j];
      if (a.b != nullptr) y += a.b[j];
      out[j] = static_cast<float>(y);
    }
  }
}

}  // namespace laya::kernels
