// Integer GEMM on q8 weights: out = epilogue(a · wᵀ + b), with w the [n, k] q8 weight
// (docs/q8-format.md: int8 q, one f32 scale per row per group of kQ8Group = 64 inputs) and a the
// [m, k] f32 activations, quantized first by quantize_activations_i16_scalar (or its SIMD twin).
//
// The scheme
// - Activations: 16-bit, symmetric, one f32 scale per row (token): s_a = max|a_row| / 32767,
//   q_a = clamp(round(a / s_a), ±32767), round to nearest, ties to even. 16 bits because the plain
//   SIMD dot (i32x4.dot_i16x8_s) multiplies 16-bit lanes anyway, so after widening the int8 weights
//   they cost no more than 8-bit activations; and 8-bit activations, even per token and per group,
//   move answers by several hundredths of probability on checkpoints with outlier channels (a few
//   dimensions 20-100x the rest, as trained encoders have). A 16-bit step per token is 1/32767 of
//   the row's largest value: a channel 100x the median leaves the median values about 300 steps,
//   finer than the weights' own 1/127 of each group's largest.
// - Products: for each output (i, j) and each weight group g, the exact int32 sum
//     S_g = Σ_{t in g} q_a[i][t] · q_w[j][t]
//   which cannot overflow: |S_g| <= 64 · 32767 · 127 = 266 330 176 < 2^31.
// - The result, in f32, groups in order from g = 0:
//     total = 0;  total = total + float(S_g) · s_w[j][g]   (a multiply, then an add: never fused)
//     out[i][j] = epilogue(total · s_a[i] + b[j])
//   Each group needs its own f32 step because each has its own weight scale.
//
// Determinism: S_g is exact in every kernel whatever order the integer additions take, and every
// f32 operation after it (int32 -> f32 conversion rounding to nearest even, the multiply, the add in
// group order, the row scale, the bias, the epilogue) is done in the same order on the same values
// by the scalar and the SIMD kernels, so they agree bit for bit, on every CPU and in every build
// (plain and relaxed SIMD alike: no multiply-add here is ever fused).
#pragma once

#include <cstddef>
#include <cstdint>

#include "graph/graph.h"
#include "kernels/isa.h"
#include "kernels/matrix.h"

namespace laya::kernels {

inline constexpr int16_t kActivationQMax = 32767;  // symmetric: -32768 is never written

// Quantized activations are laid out for the kernels' 4-row tile: rows in tiles of 4, each tile
// input pair by input pair, [tile][pair][row of the tile][2] int16: the SIMD dot multiplies two
// adjacent inputs per lane, and the 4 rows' pairs of one input pair sit in 16 bytes, read at
// constant offsets from one pointer. Rows past m and the input past an odd k are zero.
inline constexpr int64_t kActivationTileRows = 4;
inline constexpr int64_t quantized_pairs(int64_t k) { return (k + 1) / 2; }
// int16 elements of m quantized rows of k.
inline constexpr size_t quantized_activations_size(int64_t m, int64_t k) {
  return static_cast<size_t>((m + kActivationTileRows - 1) / kActivationTileRows * quantized_pairs(k) *
                             kActivationTileRows * 2);
}
// Where input t of row i is.
inline constexpr int64_t quantized_index(int64_t k, int64_t i, int64_t t) {
  return ((i / kActivationTileRows * quantized_pairs(k) + t / 2) * kActivationTileRows + i % kActivationTileRows) * 2 +
         t % 2;
}

// Quantizes rows a[m][k] (f32, row-major) into q[quantized_activations_size(m, k)] (the layout
// above) and scales[m], as the scheme above says. A row of zeros gets scale 0 and q 0; a row holding
// a non-finite value gets scale NaN (and q 0), so its results are NaN, as f32 compute would make
// them non-finite. Rows may be quantized in parts that start at multiples of kActivationTileRows:
// rows [b, e) go to q + quantized_index(k, b, 0) and scales + b.
void quantize_activations_i16_scalar(const float* a, int64_t m, int64_t k, int16_t* q, float* scales);
using QuantizeActivationsFn = void (*)(const float* a, int64_t m, int64_t k, int16_t* q, float* scales);

struct Int8GemmArgs {
  const int16_t* a = nullptr;         // m rows of k, from quantize_activations_i16_*
  const float* a_scales = nullptr;    // [m]
  int64_t m = 0;
  MatrixRef w;                        // [n, k], kI8 with scales, in rows or in 8-row panels
  const float* bias = nullptr;        // [n], or null
  Epilogue epilogue = Epilogue::kNone;
  float* out = nullptr;               // [m, n]; with kAccumulate it already holds what the results add to
};

// Columns [n_begin, n_end) of out. `scratch` holds the kernel's int8_gemm_scratch_floats_* (m)
// floats, as GemmFn's does.
using Int8GemmFn = void (*)(const Int8GemmArgs& args, int64_t n_begin, int64_t n_end, float* scratch);

// One output at a time, the executable form of the scheme; it needs no scratch.
void int8_gemm_scalar(const Int8GemmArgs& args, int64_t n_begin, int64_t n_end, float* scratch);
size_t int8_gemm_scratch_floats_scalar(int64_t m);

#ifdef LAYA_SIMD128
// Columns of k per widened weight block: a multiple of the group, 8 rows x 256 int16 = 4 KiB.
inline constexpr int64_t kInt8GemmKBlock = 256;
// A 4x8 register tile (4 rows of a, 8 weight rows) of int32 accumulators, i32x4.dot_i16x8_s on
// weight blocks widened to int16 once per block and shared by every row tile. `scratch` holds
// int8_gemm_scratch_floats_simd128(m) floats. Column ranges that start at a multiple of 8 (whole
// panels, as threads split a GEMM) take the vector widening; others are widened element by element.
void int8_gemm_4x8_simd128(const Int8GemmArgs& args, int64_t n_begin, int64_t n_end, float* scratch);
size_t int8_gemm_scratch_floats_simd128(int64_t m);
// quantize_activations_i16_scalar four inputs of four rows at a time; the same bits.
void quantize_activations_i16_simd128(const float* a, int64_t m, int64_t k, int16_t* q, float* scales);
#endif

}  // namespace laya::kernels
