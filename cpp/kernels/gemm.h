// GEMM, out = epilogue(a · wᵀ + b): a is [m, k] f32, w the [n, k] weight in its stored dtype (F32 /
// F16 / BF16 / q8, any alignment), b an optional [n] f32 bias (laya-spec §3.3, §3.6-3.8: every Linear).
//
// Every kernel sums each output in k order from 0 with kernels/madd.h's multiply-add (a multiply
// and an add; relaxed_madd in the relaxed-SIMD build), then adds the bias, then applies the epilogue;
// so the scalar and SIMD kernels agree bit for bit except where the epilogue's erf differs, and no
// result depends on where its row sits in a batch.
// Work is split over ranges of output columns (weight rows), so threads can share a GEMM later.
#pragma once

#include <cstddef>
#include <cstdint>

#include "graph/graph.h"
#include "kernels/isa.h"
#include "kernels/matrix.h"

namespace laya::kernels {

struct GemmArgs {
  const float* a = nullptr;  // [m, k]
  int64_t m = 0;
  MatrixRef w;                  // [n, k]
  const float* bias = nullptr;  // [n], or null
  Epilogue epilogue = Epilogue::kNone;
  float* out = nullptr;  // [m, n]; with kAccumulate it already holds what the results add to
};

// Columns [n_begin, n_end) of out. `scratch` holds the kernel's scratch floats for m rows of k (its
// instruction set's gemm_scratch_floats_*, below); a and out never alias.
using GemmFn = void (*)(const GemmArgs& args, int64_t n_begin, int64_t n_end, float* scratch);

void gemm_scalar(const GemmArgs& args, int64_t n_begin, int64_t n_end, float* scratch);
// The scratch a kernel needs for m rows of k.
size_t gemm_scratch_floats_scalar(int64_t m, int64_t k);

#ifdef LAYA_SIMD128
// The register tile: 4 rows of a by 8 columns of out, 8 f32x4 accumulators (V8 spills beyond).
// With relaxed_madd (kernels/madd.h) too: 5x8 and 6x8 tiles measured slower (V8 spills).
inline constexpr int64_t kGemmTileRows = 4;
inline constexpr int64_t kGemmTileCols = 8;
// Columns of k per packed panel: an 8-row panel of 256 is 8 KiB, which stays in L1 with the
// a rows it meets.
inline constexpr int64_t kGemmKBlock = 256;
void gemm_f32_4x8_simd128(const GemmArgs& args, int64_t n_begin, int64_t n_end, float* scratch);
void gemm_f16_4x8_simd128(const GemmArgs& args, int64_t n_begin, int64_t n_end, float* scratch);
void gemm_bf16_4x8_simd128(const GemmArgs& args, int64_t n_begin, int64_t n_end, float* scratch);
// q8 weights (kI8 with scales): each block converted to f32 as float(q) · scale, as the scalar
// kernel converts its rows, so the two agree bit for bit.
void gemm_q8_4x8_simd128(const GemmArgs& args, int64_t n_begin, int64_t n_end, float* scratch);
size_t gemm_scratch_floats_simd128(int64_t m, int64_t k);
#endif

// The epilogue of one result: `v` is the sum plus bias, `old` what out held.
float apply_epilogue(Epilogue epilogue, float v, float old);

}  // namespace laya::kernels
