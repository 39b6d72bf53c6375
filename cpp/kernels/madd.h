// a·b + c, the multiply-add of the GEMM and attention inner loops (and of the scalar GEMM, their
// oracle). In the relaxed-SIMD wasm build (LAYA_RELAXED_SIMD: the wasm-relaxed / wasm-mt-relaxed
// presets) it is one f32x4.relaxed_madd; everywhere else, natively on SIMDe included, a multiply
// then an add, as wasm SIMD128 has no other.
//
// relaxed_madd is fused or not as the CPU allows (V8 fuses where the CPU has FMA): the scalar madd
// runs that same instruction on lane 0, so the scalar and SIMD GEMMs agree bit for bit on any
// machine, and a module's results are the same whatever the thread count.
#pragma once

#include "kernels/simd128.h"

#if defined(LAYA_RELAXED_SIMD) && defined(__wasm_relaxed_simd__)
#define LAYA_RELAXED_MADD 1
#endif

namespace laya::kernels {

// Whether madd is relaxed_madd (this is the relaxed-SIMD build).
constexpr bool relaxed_madd_compiled() {
#ifdef LAYA_RELAXED_MADD
  return true;
#else
  return false;
#endif
}

#ifdef LAYA_SIMD128
inline v128_t madd(v128_t a, v128_t b, v128_t c) {
#ifdef LAYA_RELAXED_MADD
  // Clang 14 has only the prototype builtin, which emits the pre-standard f32x4.relaxed_fma
  // (0xfd 0xaf 0x01); scripts/relaxed-simd-rewrite.mjs rewrites it after linking into the standard
  // f32x4.relaxed_madd (0xfd 0x85 0x02), a·b + c with the operands in this order.
  return __builtin_wasm_fma_f32x4(a, b, c);
#else
  return wasm_f32x4_add(wasm_f32x4_mul(a, b), c);
#endif
}
#endif

inline float madd(float a, float b, float c) {
#ifdef LAYA_RELAXED_MADD
  return wasm_f32x4_extract_lane(madd(wasm_f32x4_splat(a), wasm_f32x4_splat(b), wasm_f32x4_splat(c)), 0);
#else
  return a * b + c;
#endif
}

}  // namespace laya::kernels
