// LayerNorm over each row (laya-spec §3.2): mean and biased variance in f64, then
// out = (x - mean) / sqrt(var + eps) · w (+ b), computed in f64 and rounded once to f32. The
// reference is PyTorch fp32; f64 statistics are at least as accurate and make the result
// independent of how a kernel orders its sums (up to the final rounding).
#pragma once

#include <cstdint>

#include "kernels/isa.h"

namespace laya::kernels {

struct LayerNormArgs {
  const float* x = nullptr;  // [rows, width]
  float* out = nullptr;      // [rows, width]; may be x (in place)
  int64_t width = 0;
  const float* w = nullptr;  // [width]
  const float* b = nullptr;  // [width], or null
  double eps = 1e-5;
};

using LayerNormFn = void (*)(const LayerNormArgs& args, int64_t row_begin, int64_t row_end);

void layer_norm_f32_scalar(const LayerNormArgs& args, int64_t row_begin, int64_t row_end);
#ifdef LAYA_SIMD128
void layer_norm_f32_simd128(const LayerNormArgs& args, int64_t row_begin, int64_t row_end);
#endif

}  // namespace laya::kernels
