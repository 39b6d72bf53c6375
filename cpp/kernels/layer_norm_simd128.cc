// The wasm SIMD128 LayerNorm: the scalar kernel's f64 math on f64x2 lanes (two f32 lanes promoted
// at a time). Only the order of the f64 sums differs from the scalar kernel, which can move a
// result by at most one f32 rounding.
#include "kernels/layer_norm.h"

#ifdef LAYA_SIMD128

#include <cmath>

#include "kernels/simd128.h"

namespace laya::kernels {

namespace {

inline v128_t high_half(v128_t v) { return wasm_i32x4_shuffle(v, v, 2, 3, 0, 1); }

inline double hsum_f64(v128_t v) { return wasm_f64x2_extract_lane(v, 0) + wasm_f64x2_extract_lane(v, 1); }

// (x − mean)·rstd·w (+ b) for two f32 lanes promoted to f64.
inline v128_t normalize2(v128_t x, v128_t w, v128_t b, bool bias, v128_t mean, v128_t rstd) {
  v128_t y = wasm_f64x2_mul(wasm_f64x2_mul(wasm_f64x2_sub(wasm_f64x2_promote_low_f32x4(x), mean), rstd),
                            wasm_f64x2_promote_low_f32x4(w));
  if (bias) y = wasm_f64x2_add(y, wasm_f64x2_promote_low_f32x4(b));
  return wasm_f32x4_demote_f64x2_zero(y);
}

}  // namespace

void layer_norm_f32_simd128(const LayerNormArgs& a, int64_t row_begin, int64_t row_end) {
  const int64_t d = a.width;
  const int64_t d4 = d / 4 * 4;
  const bool bias = a.b != nullptr;
  for (int64_t r = row_begin; r < row_end; ++r) {
    const float* x = a.x + r * d;
    float* out = a.out + r * d;
    v128_t s0 = wasm_f64x2_splat(0.0), s1 = wasm_f64x2_splat(0.0);
    for (int64_t j = 0; j < d4; j += 4) {
      const v128_t v = wasm_v128_load(x + j);
      s0 = wasm_f64x2_add(s0, wasm_f64x2_promote_low_f32x4(v));
      s1 = wasm_f64x2_add(s1, wasm_f64x2_promote_low_f32x4(high_half(v)));
    }
    double sum = hsum_f64(wasm_f64x2_add(s0, s1));
    for (int64_t j = d4; j < d; ++j) sum += x[j];
    const double mean = sum / static_cast<double>(d);
    const v128_t mv = wasm_f64x2_splat(mean);
    s0 = s1 = wasm_f64x2_splat(0.0);
    for (int64_t j = 0; j < d4; j += 4) {
      const v128_t v = wasm_v128_load(x + j);
      const v128_t c0 = wasm_f64x2_sub(wasm_f64x2_promote_low_f32x4(v), mv);
      const v128_t c1 = wasm_f64x2_sub(wasm_f64x2_promote_low_f32x4(high_half(v)), mv);
      s0 = wasm_f64x2_add(s0, wasm_f64x2_mul(c0, c0));
      s1 = wasm_f64x2_add(s1, wasm_f64x2_mul(c1, c1));
    }
    double sq = hsum_f64(wasm_f64x2_add(s0, s1));
    for (int64_t j = d4; j < d; ++j) {
      const double c = x[j] - mean;
      sq += c * c;
    }
    const double rstd = 1.0 / std::sqrt(sq / static_cast<double>(d) + a.eps);
    const v128_t rv = wasm_f64x2_splat(rstd);
    const v128_t zero = wasm_f32x4_splat(0.0f);
    for (int64_t j = 0; j < d4; j += 4) {
      const v128_t v = wasm_v128_load(x + j);
      const v128_t w = wasm_v128_load(a.w + j);
      const v128_t b = bias ? wasm_v128_load(a.b + j) : zero;
      const v128_t lo = normalize2(v, w, b, bias, mv, rv);
      const v128_t hi = normalize2(high_half(v), high_half(w), high_half(b), bias, mv, rv);
      wasm_v128_store(out + j, wasm_i32x4_shuffle(lo, hi, 0, 1, 4, 5));
    }
    for (int64_t j = d4; j < d; ++j) {
      double y = (x[j] - mean) * rstd * a.w[j];
      if (bias) y += a.b[j];
      out[j] = static_cast<float>(y);
    }
  }
}

}  // namespace laya::kernels

#endif  // LAYA_SIMD128
