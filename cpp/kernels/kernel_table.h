// Every kernel of one instruction set in one table, so the lowering chooses the instruction set
// once (kernel_table) and then reads each op's kernel from it, and the question "is SIMD128 built?"
// is answered in one place (kernel_table.cc) instead of once per op. The scalar table is below,
// beside the struct it fills; the SIMD128 table (simd128_kernels.cc) starts from it and replaces
// the kernels that have a SIMD twin, so an op without one needs no entry there.
#pragma once

#include <cstddef>
#include <cstdint>

#include "graph/weights.h"
#include "kernels/act_features.h"
#include "kernels/add_type.h"
#include "kernels/attention.h"
#include "kernels/embed.h"
#include "kernels/gather_markers.h"
#include "kernels/geglu.h"
#include "kernels/gemm.h"
#include "kernels/int8_gemm.h"
#include "kernels/isa.h"
#include "kernels/layer_norm.h"
#include "kernels/mean_pool.h"
#include "kernels/rope.h"

namespace laya::kernels {

// A kernel for each weight dtype an op reads. Ops whose one kernel reads every dtype (MatrixRef
// converts as it reads) fill all four with it (every_dtype).
template <class Fn>
struct ByDtype {
  Kernel<Fn> f32, f16, bf16, q8;

  static ByDtype every_dtype(const Kernel<Fn>& kernel) { return {kernel, kernel, kernel, kernel}; }

  const Kernel<Fn>& of(DType dtype) const {
    switch (dtype) {
      case DType::kF32: return f32;
      case DType::kF16: return f16;
      case DType::kBF16: return bf16;
      case DType::kI8: return q8;  // kI8 weights are q8: int8 with scales (docs/q8-format.md)
    }
    return f32;  // not reached: the switch names every DType (-Wswitch says when one is added)
  }
};

// Every kernel of one instruction set, with the scratch its GEMM and attention need. Tables are
// written with designated initialisers, member by member, so a missing kernel stands out (and
// kernel_table_test checks that none is null).
struct KernelTable {
  Isa isa;
  ByDtype<EmbedFn> embed;
  Kernel<LayerNormFn> layer_norm;
  ByDtype<GemmFn> gemm;
  size_t (*gemm_scratch_floats)(int64_t m, int64_t k);
  // Compute::kInt8 on q8 weights: the activations quantized, then the integer GEMM.
  Kernel<QuantizeActivationsFn> quantize_activations;
  Kernel<Int8GemmFn> int8_gemm;
  size_t (*int8_gemm_scratch_floats)(int64_t m);
  Kernel<RopeFn> rope;
  Kernel<AttentionFn> attention;
  size_t (*attention_scratch_floats)(int64_t max_seq_len);
  Kernel<GeGluFn> geglu;
  ByDtype<AddTypeFn> add_type;
  Kernel<GatherMarkersFn> gather_markers;
  Kernel<ActFeaturesFn> act_features;
  Kernel<MeanPoolFn> mean_pool;
};

// The table of `isa`; kSimd128 where this build lacks it gives the scalar table (its kernels' names
// say so).
const KernelTable& kernel_table(Isa isa);

// The scalar table: the plain kernels every build has (the executable spec and the test oracle).
// Ops that read weights share one kernel over every dtype (MatrixRef converts as it reads).
inline const KernelTable& scalar_kernel_table() {
  static const KernelTable table{
      .isa = Isa::kScalar,
      .embed = ByDtype<EmbedFn>::every_dtype(LAYA_KERNEL(embed_scalar)),
      .layer_norm = LAYA_KERNEL(layer_norm_f32_scalar),
      .gemm = ByDtype<GemmFn>::every_dtype(LAYA_KERNEL(gemm_scalar)),
      .gemm_scratch_floats = gemm_scratch_floats_scalar,
      .quantize_activations = LAYA_KERNEL(quantize_activations_i16_scalar),
      .int8_gemm = LAYA_KERNEL(int8_gemm_scalar),
      .int8_gemm_scratch_floats = int8_gemm_scratch_floats_scalar,
      .rope = LAYA_KERNEL(rope_f32_scalar),
      .attention = LAYA_KERNEL(attention_f32_scalar),
      .attention_scratch_floats = attention_scratch_floats_scalar,
      .geglu = LAYA_KERNEL(geglu_f32_scalar),
      .add_type = ByDtype<AddTypeFn>::every_dtype(LAYA_KERNEL(add_type_scalar)),
      .gather_markers = LAYA_KERNEL(gather_markers_f32_scalar),
      .act_features = LAYA_KERNEL(act_features_f32_scalar),
      .mean_pool = LAYA_KERNEL(mean_pool_f32_scalar),
  };
  return table;
}

#ifdef LAYA_SIMD128
const KernelTable& simd128_kernel_table();
#endif

}  // namespace laya::kernels
