// Vector math for the wasm SIMD128 kernels: exp, erf, the exact GELU, row reductions and the 4x4
// transpose, and exact F16 / BF16 -> f32 conversion. Compiled where the SIMD kernels are (LAYA_SIMD128:
// wasm SIMD, and natively on SIMDe, kernels/simd128.h).
//
// exp and erf are our own fits; their coefficients come from tools/simd128-math-fit/fit.py, which
// regenerates them and prints their error on a dense grid. exp is Cody-Waite reduction to r in
// [-ln2/2, ln2/2] and 1 + r + r²·q(r), max 1 ulp; erf is x + x·p(x²) below 1 and 1 − exp(−x²)·q(1/x)
// up to 4 (1.0f beyond), max 1.8 ulp. GELU built on them is within 1.3e-7 · max(1, |y|) of the exact
// value.
#pragma once

#include "kernels/simd128.h"

#ifdef LAYA_SIMD128

#include <cstdint>

namespace laya::kernels::simd {

// Lane r of the result reduces the 4 lanes of rows[r] with `op` (a 4x4 transpose-reduce), as
// (x0 op x2) op (x1 op x3).
template <class Op>
inline v128_t reduce_rows(const v128_t rows[4], Op op) {
  const v128_t t0 = op(wasm_i32x4_shuffle(rows[0], rows[1], 0, 1, 4, 5), wasm_i32x4_shuffle(rows[0], rows[1], 2, 3, 6, 7));
  const v128_t t1 = op(wasm_i32x4_shuffle(rows[2], rows[3], 0, 1, 4, 5), wasm_i32x4_shuffle(rows[2], rows[3], 2, 3, 6, 7));
  return op(wasm_i32x4_shuffle(t0, t1, 0, 2, 4, 6), wasm_i32x4_shuffle(t0, t1, 1, 3, 5, 7));
}
inline v128_t row_sums(const v128_t rows[4]) {
  return reduce_rows(rows, [](v128_t a, v128_t b) { return wasm_f32x4_add(a, b); });
}
// pmax: one maxps (see clamp); with a NaN lane the result may or may not be NaN.
inline v128_t row_maxes(const v128_t rows[4]) {
  return reduce_rows(rows, [](v128_t a, v128_t b) { return wasm_f32x4_pmax(a, b); });
}

// Transposes the 4x4 block whose rows are r[0..3] in place: r[c] becomes column c.
inline void transpose4x4(v128_t r[4]) {
  const v128_t t0 = wasm_i32x4_shuffle(r[0], r[1], 0, 4, 1, 5);
  const v128_t t1 = wasm_i32x4_shuffle(r[0], r[1], 2, 6, 3, 7);
  const v128_t t2 = wasm_i32x4_shuffle(r[2], r[3], 0, 4, 1, 5);
  const v128_t t3 = wasm_i32x4_shuffle(r[2], r[3], 2, 6, 3, 7);
  r[0] = wasm_i32x4_shuffle(t0, t2, 0, 1, 4, 5);
  r[1] = wasm_i32x4_shuffle(t0, t2, 2, 3, 6, 7);
  r[2] = wasm_i32x4_shuffle(t1, t3, 0, 1, 4, 5);
  r[3] = wasm_i32x4_shuffle(t1, t3, 2, 3, 6, 7);
}

// Horner's rule for c[0] + x·(c[1] + x·(...)), N coefficients.
template <int N>
inline v128_t polynomial(v128_t x, const float (&c)[N]) {
  v128_t acc = wasm_f32x4_splat(c[N - 1]);
  for (int i = N - 2; i >= 0; --i) acc = wasm_f32x4_add(wasm_f32x4_mul(acc, x), wasm_f32x4_splat(c[i]));
  return acc;
}

// Clamps written with pmin / pmax (a compare and a select: one minps / maxps on x64) rather than
// f32x4.min / max, whose NaN and signed-zero rules cost V8 about six instructions each. The operand
// order keeps a NaN input NaN: pmax(x, lo) is x unless x < lo.
inline v128_t clamp(v128_t x, float lo, float hi) {
  return wasm_f32x4_pmin(wasm_f32x4_pmax(x, wasm_f32x4_splat(lo)), wasm_f32x4_splat(hi));
}

// e^x. Below −87.3365 (and for −inf) the result is 0; the inputs here are softmax shifts (<= 0) and
// −x² of erf, so the upper clamp only keeps 2^n finite.
inline v128_t exp_f32x4(v128_t x) {
  constexpr float kLow = -87.3365478515625f;  // ln(2^-126)
  constexpr float kHigh = 88.3762626647949f;  // 127.5 · ln 2
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693145751953125f;  // few significant bits: n · kLn2Hi is exact
  constexpr float kLn2Lo = 1.428606765330187045e-06f;
  // Adding 1.5·2^23 rounds to an integer (to nearest, ties to even, as f32x4.nearest) and leaves it
  // in the low mantissa bits, so 2^n is built from those bits without a float-to-int conversion
  // (which V8 saturates in about eight instructions).
  constexpr float kRound = 12582912.0f;
  static constexpr float kQ[] = {0.499999881f, 0.166665182f, 0.0416695327f, 0.00836891588f, 0.00137514074f};
  const v128_t underflow = wasm_f32x4_lt(x, wasm_f32x4_splat(kLow));
  x = clamp(x, kLow, kHigh);
  const v128_t rounded = wasm_f32x4_add(wasm_f32x4_mul(x, wasm_f32x4_splat(kLog2e)), wasm_f32x4_splat(kRound));
  const v128_t n = wasm_f32x4_sub(rounded, wasm_f32x4_splat(kRound));
  v128_t r = wasm_f32x4_sub(x, wasm_f32x4_mul(n, wasm_f32x4_splat(kLn2Hi)));
  r = wasm_f32x4_sub(r, wasm_f32x4_mul(n, wasm_f32x4_splat(kLn2Lo)));
  const v128_t r2 = wasm_f32x4_mul(r, r);
  const v128_t p = wasm_f32x4_add(wasm_f32x4_splat(1.0f), wasm_f32x4_add(r, wasm_f32x4_mul(r2, polynomial(r, kQ))));
  // `rounded` is 2^23 + 2^22 + n, so its low 23 bits are 2^22 + n: adding 127 and shifting by 23
  // leaves (n + 127) mod 2^9 in the exponent field, the bits of 2^n for n in [−126, 128].
  const v128_t scale = wasm_i32x4_shl(wasm_i32x4_add(rounded, wasm_i32x4_splat(127)), 23);
  return wasm_v128_andnot(wasm_f32x4_mul(p, scale), underflow);
}

inline v128_t erf_f32x4(v128_t x) {
  static constexpr float kSmall[] = {0.128379166f,   -0.376126289f,   0.112836123f,   -0.0268548094f,
                                     0.00519005349f, -0.000802435388f, 7.89820988e-05f};
  static constexpr float kTail[] = {2.5961348e-05f, 0.563719213f, 0.00301545812f, -0.285186321f,
                                    -0.0692685097f, 0.899486005f, -1.52405393f,   1.42400491f,
                                    -0.810604155f,  0.264662623f, -0.0382176042f};
  const v128_t sign = wasm_v128_and(x, wasm_i32x4_splat(static_cast<int32_t>(0x80000000u)));
  const v128_t a = wasm_f32x4_abs(x);
  // |x| < 1: x + x·p(x²), the leading term kept exact.
  const v128_t small = wasm_f32x4_add(x, wasm_f32x4_mul(x, polynomial(wasm_f32x4_mul(x, x), kSmall)));
  // 1 <= |x|: 1 − e^(−x²)·q(1/x), with |x| clamped to [1, 4] (erf rounds to 1 from 3.92 on).
  const v128_t c = clamp(a, 1.0f, 4.0f);
  const v128_t q = polynomial(wasm_f32x4_div(wasm_f32x4_splat(1.0f), c), kTail);
  const v128_t e = exp_f32x4(wasm_f32x4_neg(wasm_f32x4_mul(c, c)));
  const v128_t big = wasm_v128_or(wasm_f32x4_sub(wasm_f32x4_splat(1.0f), wasm_f32x4_mul(e, q)), sign);
  return wasm_v128_bitselect(small, big, wasm_f32x4_lt(a, wasm_f32x4_splat(1.0f)));
}

// 0.5·x·(1 + erf(x·√½)), in the scalar kernel's order of operations.
inline v128_t gelu_f32x4(v128_t x) {
  const v128_t e = erf_f32x4(wasm_f32x4_mul(x, wasm_f32x4_splat(0.70710678118654752440f)));
  return wasm_f32x4_mul(wasm_f32x4_mul(wasm_f32x4_splat(0.5f), x), wasm_f32x4_add(wasm_f32x4_splat(1.0f), e));
}

// Four IEEE halves, one in the low 16 bits of each u32 lane, to f32, exactly: exponent and mantissa
// are moved into place and scaled by 2^112 (exact for normals, subnormals and zeros alike: wasm keeps
// subnormals). Infinities and NaNs need the f32 all-ones exponent instead; they are rare in weights,
// so that path is taken only when a lane holds one and the common case costs one any_true.
inline v128_t f16_to_f32x4(v128_t h) {
  const v128_t em = wasm_u32x4_shr(wasm_i32x4_shl(h, 17), 4);  // sign shifted out, em << 13
  const v128_t sign = wasm_v128_and(wasm_i32x4_shl(h, 16), wasm_i32x4_splat(static_cast<int32_t>(0x80000000u)));
  const v128_t finite = wasm_v128_or(wasm_f32x4_mul(em, wasm_f32x4_splat(0x1p112f)), sign);
  const v128_t is_special = wasm_i32x4_ge(em, wasm_i32x4_splat(0x7C00 << 13));
  if (__builtin_expect(!wasm_v128_any_true(is_special), 1)) return finite;
  const v128_t special = wasm_v128_or(wasm_v128_or(em, wasm_i32x4_splat(0x7F800000)), sign);
  return wasm_v128_bitselect(special, finite, is_special);
}

inline v128_t bf16_to_f32x4(v128_t h) { return wasm_i32x4_shl(h, 16); }

// Eight IEEE halves (u16x8) to two f32x4, exactly as f16_to_f32x4 but cheaper, for converting
// weights in bulk: one test for infinities and NaNs covers all eight lanes, and sign-extending the
// halves before the shift puts the sign in bit 31 directly (its copies in bits 28-30 are masked),
// so a lane costs a shift, an and and the scaling multiply.
inline void f16x8_to_f32x4x2(v128_t h, v128_t& low, v128_t& high) {
  const v128_t exponent = wasm_i16x8_splat(0x7C00);
  if (__builtin_expect(wasm_v128_any_true(wasm_i16x8_eq(wasm_v128_and(h, exponent), exponent)), 0)) {
    low = f16_to_f32x4(wasm_u32x4_extend_low_u16x8(h));
    high = f16_to_f32x4(wasm_u32x4_extend_high_u16x8(h));
    return;
  }
  const v128_t sign_and_em = wasm_i32x4_splat(static_cast<int32_t>(0x8FFFE000u));
  const v128_t scale = wasm_f32x4_splat(0x1p112f);
  low = wasm_f32x4_mul(wasm_v128_and(wasm_i32x4_shl(wasm_i32x4_extend_low_i16x8(h), 13), sign_and_em), scale);
  high = wasm_f32x4_mul(wasm_v128_and(wasm_i32x4_shl(wasm_i32x4_extend_high_i16x8(h), 13), sign_and_em), scale);
}

}  // namespace laya::kernels::simd

#endif  // LAYA_SIMD128
