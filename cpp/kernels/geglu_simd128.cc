// The wasm SIMD128 GELU and GeGlu, on the vector erf of simd128_math.h. Row tails go through the
// same vector code (padded), so every element of a row is computed the same way.
#include "kernels/geglu.h"

#ifdef LAYA_SIMD128

#include <cstring>

#include "kernels/simd128.h"
#include "kernels/simd128_math.h"

namespace laya::kernels {

void gelu_f32_simd128(const float* x, float* out, int64_t count) {
  int64_t j = 0;
  for (; j + 4 <= count; j += 4) wasm_v128_store(out + j, simd::gelu_f32x4(wasm_v128_load(x + j)));
  if (j < count) {
    float tmp[4] = {};
    const size_t tail = static_cast<size_t>(count - j) * sizeof(float);
    std::memcpy(tmp, x + j, tail);
    wasm_v128_store(tmp, simd::gelu_f32x4(wasm_v128_load(tmp)));
    std::memcpy(out + j, tmp, tail);
  }
}

void geglu_f32_simd128(const float* x, float* out, int64_t n, int64_t row_begin, int64_t row_end) {
  for (int64_t r = row_begin; r < row_end; ++r) {
    const float* in = x + r * 2 * n;
    float* o = out + r * n;
    int64_t j = 0;
    for (; j + 4 <= n; j += 4) {
      const v128_t g = simd::gelu_f32x4(wasm_v128_load(in + j));
      wasm_v128_store(o + j, wasm_f32x4_mul(g, wasm_v128_load(in + n + j)));
    }
    if (j < n) {
      float a[4] = {}, b[4] = {}, tmp[4];
      const size_t tail = static_cast<size_t>(n - j) * sizeof(float);
      std::memcpy(a, in + j, tail);
      std::memcpy(b, in + n + j, tail);
      wasm_v128_store(tmp, wasm_f32x4_mul(simd::gelu_f32x4(wasm_v128_load(a)), wasm_v128_load(b)));
      std::memcpy(o + j, tmp, tail);
    }
  }
}

}  // namespace laya::kernels

#endif  // LAYA_SIMD128
