// GeGlu, out = gelu(x[:, :n]) * x[:, n:] over rows twice as wide as out (laya-spec §3.3, the encoder
// MLP), and the exact (erf) GELU it is built on, 0.5·x·(1 + erf(x/√2)) (laya-spec §3.3: never the tanh
// form), which the GEMM's GELU epilogue also uses.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/isa.h"

namespace laya::kernels {

inline constexpr float kSqrtHalf = 0.70710678118654752440f;

// The order of operations is PyTorch's (x·0.5)·(1 + erf(x·√½)); erf is the C library's.
inline float gelu_scalar(float x) { return 0.5f * x * (1.0f + std::erf(x * kSqrtHalf)); }

// Rows [row_begin, row_end) of x ([rows, 2n]) into out ([rows, n]).
using GeGluFn = void (*)(const float* x, float* out, int64_t n, int64_t row_begin, int64_t row_end);

void geglu_f32_scalar(const float* x, float* out, int64_t n, int64_t row_begin, int64_t row_end);
#ifdef LAYA_SIMD128
void geglu_f32_simd128(const float* x, float* out, int64_t n, int64_t row_begin, int64_t row_end);
// GELU of `count` values, in place allowed: the vector erf of simd128_math.h.
void gelu_f32_simd128(const float* x, float* out, int64_t count);
#endif

}  // namespace laya::kernels
