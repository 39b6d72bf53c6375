// Scalar GeGlu; the SIMD twin is in geglu_simd128.cc, and kernels/kernel_table.h picks between them.
#include "kernels/geglu.h"

namespace laya::kernels {

void geglu_f32_scalar(const float* x, float* out, int64_t n, int64_t row_begin, int64_t row_end) {
  for (int64_t r = row_begin; r < row_end; ++r) {
    const float* in = x + r * 2 * n;
    float* o = out + r * n;
    for (int64_t j = 0; j < n; ++j) o[j] = gelu_scalar(in[j]) * in[n + j];
  }
}

}  // namespace laya::kernels
