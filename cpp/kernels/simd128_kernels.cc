// The wasm SIMD128 kernel table (built where LAYA_SIMD128 is: wasm, and natively on SIMDe): the
// scalar table with the kernels that have a SIMD twin replaced. The table lookups, the marker ops
// and MeanPool are memory bound or tiny and keep their scalar kernels, names included: a step's
// name then says that it runs the scalar kernel.
#include "kernels/kernel_table.h"

#ifdef LAYA_SIMD128

namespace laya::kernels {

const KernelTable& simd128_kernel_table() {
  static const KernelTable table = [] {
    KernelTable t = scalar_kernel_table();
    t.isa = Isa::kSimd128;
    t.layer_norm = LAYA_KERNEL(layer_norm_f32_simd128);
    t.gemm = {.f32 = LAYA_KERNEL(gemm_f32_4x8_simd128),
              .f16 = LAYA_KERNEL(gemm_f16_4x8_simd128),
              .bf16 = LAYA_KERNEL(gemm_bf16_4x8_simd128),
              .q8 = LAYA_KERNEL(gemm_q8_4x8_simd128)};
    t.gemm_scratch_floats = gemm_scratch_floats_simd128;
    t.quantize_activations = LAYA_KERNEL(quantize_activations_i16_simd128);
    t.int8_gemm = LAYA_KERNEL(int8_gemm_4x8_simd128);
    t.int8_gemm_scratch_floats = int8_gemm_scratch_floats_simd128;
    t.rope = LAYA_KERNEL(rope_f32_simd128);
    t.attention = LAYA_KERNEL(attention_f32_4x8_simd128);
    t.attention_scratch_floats = attention_scratch_floats_simd128;
    t.geglu = LAYA_KERNEL(geglu_f32_simd128);
    return t;
  }();
  return table;
}

}  // namespace laya::kernels

#endif  // LAYA_SIMD128
