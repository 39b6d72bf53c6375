// The wasm SIMD128 RoPE: the scalar kernel's rotation four pairs at a time (two products then a
// sum or difference, no FMA), so both give the same bits.
#include "kernels/rope.h"

#ifdef LAYA_SIMD128

#include <cassert>

#include "kernels/simd128.h"

namespace laya::kernels {

void rope_f32_simd128(const RopeArgs& a, int64_t seq_begin, int64_t seq_end) {
  const int64_t width = 3 * a.heads * kHeadDim;
  for (int64_t s = seq_begin; s < seq_end; ++s) {
    const int64_t start = a.seq_starts[s];
    const int64_t len = a.seq_starts[s + 1] - start;
    assert(len <= a.table->positions && "the RoPE table covers the bucket's longest sequence");
    for (int64_t p = 0; p < len; ++p) {
      const float* c = a.table->cos.data() + p * kRopePairs;
      const float* sn = a.table->sin.data() + p * kRopePairs;
      float* row = a.qkv + (start + p) * width;
      for (int64_t h = 0; h < 2 * a.heads; ++h) {
        float* x = row + h * kHeadDim;
        for (int64_t j = 0; j < kRopePairs; j += 4) {
          const v128_t lo = wasm_v128_load(x + j);
          const v128_t hi = wasm_v128_load(x + j + kRopePairs);
          const v128_t cv = wasm_v128_load(c + j);
          const v128_t sv = wasm_v128_load(sn + j);
          wasm_v128_store(x + j, wasm_f32x4_sub(wasm_f32x4_mul(lo, cv), wasm_f32x4_mul(hi, sv)));
          wasm_v128_store(x + j + kRopePairs, wasm_f32x4_add(wasm_f32x4_mul(hi, cv), wasm_f32x4_mul(lo, sv)));
        }
      }
    }
  }
}

}  // namespace laya::kernels

#endif  // LAYA_SIMD128
