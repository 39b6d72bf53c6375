// Every kernel of one instruction set in one table, so the lowering chooses the instruction set
// once (kernel_table) and then reads each op's kernel from it, and the question "is SIMD128 built?"
// is answered in one place (kernel_table.cc) instead of once per op. The scalar table is below,
// beside the struct it fills; the SIMD128 table (simd128_kernels.cc) starts from it and replaces
// the kernels that have a SIMD twin, so an op without one needs no entry there.
#pragma once

#include <cstddef>
#include <cstdint>

#include "graph/weights.h"
#include "kernels/attention.h"
#include "kernels/embed.h"
#include "kernels/gelu.h"
#include "kernels/gemm.h"
#include "kernels/isa.h"
#include "kernels/layer_norm.h"
#include "kernels/markers.h"
#include "kernels/mean_pool.h"
#include "kernels/rope.h"

namespace laya::kernels {

// A kernel for each weight dtype an op reads: the kernel may be shared, but its name says which
// dtype it was chosen for.
template <class Fn>
struct ByDtype {
  Kernel<Fn> f32, f16, bf16, q8;

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
// Ops that read weights share one kernel over every dtype (MatrixRef converts as it reads), but
// each dtype has its own name, so a step's kernel name says which weights it reads.
inline const KernelTable& scalar_kernel_table() {
  static const KernelTable table{
      .isa = Isa::kScalar,
      .embed = {.f32 = {embed_scalar, "embed_f32_scalar"},
                .f16 = {embed_scalar, "embed_f16_scalar"},
                .bf16 = {embed_scalar, "embed_bf16_scalar"},
                .q8 = {embed_scalar, "embed_q8_scalar"}},
      .layer_norm = {layer_norm_f32_scalar, "layer_norm_f32_scalar"},
      .gemm = {.f32 = {gemm_scalar, "gemm_f32_scalar"},
               .f16 = {gemm_scalar, "gemm_f16_scalar"},
               .bf16 = {gemm_scalar, "gemm_bf16_scalar"},
               .q8 = {gemm_scalar, "gemm_q8_scalar"}},
      .gemm_scratch_floats = gemm_scratch_floats_scalar,
      .rope = {rope_f32_scalar, "rope_f32_scalar"},
      .attention = {attention_f32_scalar, "attention_f32_scalar"},
      .attention_scratch_floats = attention_scratch_floats_scalar,
      .geglu = {geglu_f32_scalar, "geglu_f32_scalar"},
      .add_type = {.f32 = {add_type_scalar, "add_type_f32_scalar"},
                   .f16 = {add_type_scalar, "add_type_f16_scalar"},
                   .bf16 = {add_type_scalar, "add_type_bf16_scalar"},
                   .q8 = {add_type_scalar, "add_type_q8_scalar"}},
      .gather_markers = {gather_markers_f32_scalar, "gather_markers_f32_scalar"},
      .act_features = {act_features_f32_scalar, "act_features_f32_scalar"},
      .mean_pool = {mean_pool_f32_scalar, "mean_pool_f32_scalar"},
  };
  return table;
}

#ifdef LAYA_SIMD128
const KernelTable& simd128_kernel_table();
#endif

}  // namespace laya::kernels
