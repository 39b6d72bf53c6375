// The wasm SIMD128 GEMM: C = A·Bᵀ with B the [n, k] weight in its stored dtype. For each block of
// 8 weight rows and kGemmKBlock columns of k, the block is converted to f32 into a small panel laid
// out k-major (8 floats per k, two f32x4): from weights arranged in panels at load
// (WeightLayout::kPanels8) that is one contiguous conversion, or for F32 panels no copy at all;
// from weights in rows it is a gather and transpose (q8: float(q) · scale). Then a 4x8 register tile (8 f32x4
// accumulators, the most V8 keeps in registers) runs over every row tile of A. Sums of one tile
// carry over between k blocks through a per-row partial buffer, so each output is summed in k order
// exactly as the scalar kernel sums it; the bias and the epilogue are applied once, after the last
// block.
#include "kernels/gemm.h"

#ifdef LAYA_SIMD128

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/madd.h"
#include "kernels/simd128.h"
#include "kernels/simd128_math.h"

namespace laya::kernels {

namespace {

constexpr int64_t kMr = kGemmTileRows;
constexpr int64_t kNr = kGemmTileCols;

// Four consecutive stored elements as f32x4.
template <DType D>
inline v128_t load4(const std::byte* p) {
  if constexpr (D == DType::kF32) {
    return wasm_v128_load(p);
  } else if constexpr (D == DType::kF16) {
    return simd::f16_to_f32x4(wasm_u32x4_load16x4(p));
  } else {
    static_assert(D == DType::kBF16 || D == DType::kI8);  // kI8 never gets here (pack_panel)
    return simd::bf16_to_f32x4(wasm_u32x4_load16x4(p));
  }
}

// panel[t][c] = w[j0 + c][k0 + t] for t < kc, c < 8; columns past `rows` are zero.
template <DType D>
void pack_panel(const MatrixRef& w, int64_t j0, int64_t rows, int64_t k0, int64_t kc, float* panel) {
  constexpr size_t kSize = D == DType::kF32 ? 4 : 2;
  const size_t row_bytes = static_cast<size_t>(w.cols) * kSize;
  const std::byte* base = w.data + static_cast<size_t>(j0) * row_bytes + static_cast<size_t>(k0) * kSize;
  int64_t t = 0;
  // q8 matrices in rows are only the small heads (fewer than 8 rows): element by element below.
  if (D != DType::kI8 && rows == kNr) {
    // Four k at a time: load 4 elements of each of the 8 rows, transpose two 4x4 blocks.
    for (; t + 4 <= kc; t += 4) {
      const std::byte* p = base + static_cast<size_t>(t) * kSize;
      for (int half = 0; half < 2; ++half) {
        const std::byte* q = p + static_cast<size_t>(4 * half) * row_bytes;
        v128_t r[4];
        for (int i = 0; i < 4; ++i) r[i] = load4<D>(q + static_cast<size_t>(i) * row_bytes);
        simd::transpose4x4(r);
        for (int i = 0; i < 4; ++i) wasm_v128_store(panel + (t + i) * kNr + 4 * half, r[i]);
      }
    }
  }
  // The k tail, and edge panels of fewer than 8 rows, element by element.
  for (; t < kc; ++t) {
    for (int64_t c = 0; c < kNr; ++c) panel[t * kNr + c] = c < rows ? w.at(j0 + c, k0 + t) : 0.0f;
  }
}

// The block [k0, k0 + kc) of an 8-row panel stored k-major (WeightLayout::kPanels8) as f32: the
// stored floats themselves when they are F32 and aligned, else converted into `panel`.
template <DType D>
const float* panel_block(const MatrixRef& w, int64_t j0, int64_t k0, int64_t kc, float* panel) {
  const std::byte* src = w.element(j0, k0);
  const int64_t count = kc * kNr;
  if constexpr (D == DType::kF32) {
    if (reinterpret_cast<uintptr_t>(src) % alignof(float) == 0) return reinterpret_cast<const float*>(src);
    std::memcpy(panel, src, static_cast<size_t>(count) * sizeof(float));
    return panel;
  } else if constexpr (D == DType::kI8) {
    // 8 bytes per k (the panel's 8 rows), times the 8 rows' scales of its group: k0 is a multiple
    // of kGemmKBlock, hence of the group, so groups start at t0.
    static_assert(kGemmKBlock % kQ8Group == 0, "a k block holds whole q8 groups");
    for (int64_t t0 = 0; t0 < kc; t0 += kQ8Group) {
      const std::byte* scales = w.scale(j0, (k0 + t0) / kQ8Group);
      const v128_t s0 = wasm_v128_load(scales);
      const v128_t s1 = wasm_v128_load(scales + 16);
      const int64_t t1 = std::min(kc, t0 + kQ8Group);
      for (int64_t t = t0; t < t1; ++t) {
        const v128_t q = wasm_i16x8_load8x8(src + kNr * t);
        const v128_t lo = wasm_f32x4_convert_i32x4(wasm_i32x4_extend_low_i16x8(q));
        const v128_t hi = wasm_f32x4_convert_i32x4(wasm_i32x4_extend_high_i16x8(q));
        wasm_v128_store(panel + t * kNr, wasm_f32x4_mul(lo, s0));
        wasm_v128_store(panel + t * kNr + 4, wasm_f32x4_mul(hi, s1));
      }
    }
    return panel;
  } else {
    for (int64_t i = 0; i < count; i += 8) {
      const v128_t h = wasm_v128_load(src + 2 * i);
      if constexpr (D == DType::kF16) {
        v128_t lo, hi;
        simd::f16x8_to_f32x4x2(h, lo, hi);
        wasm_v128_store(panel + i, lo);
        wasm_v128_store(panel + i + 4, hi);
      } else {
        wasm_v128_store(panel + i, simd::bf16_to_f32x4(wasm_u32x4_extend_low_u16x8(h)));
        wasm_v128_store(panel + i + 4, simd::bf16_to_f32x4(wasm_u32x4_extend_high_u16x8(h)));
      }
    }
    return panel;
  }
}

struct TileJob {
  const GemmArgs* g;
  const float* panel;
  float* partial;  // [m][8]
  int64_t k0, kc, j0, cols;
  bool first, last;
};

inline v128_t epilogue(Epilogue e, v128_t v, v128_t old) {
  switch (e) {
    case Epilogue::kNone: return v;
    case Epilogue::kGelu: return simd::gelu_f32x4(v);
    case Epilogue::kRelu: return wasm_f32x4_pmax(wasm_f32x4_splat(0.0f), v);
    case Epilogue::kAccumulate: return wasm_f32x4_add(old, v);
  }
  return v;
}

// Bias and epilogue for rows [i, i + rows) of a tile whose sums are in the partial buffer, stored to
// the tile's valid columns of out.
void finish_rows(const TileJob& job, int64_t i, int rows) {
  const GemmArgs& g = *job.g;
  const int64_t n = g.w.rows;
  const size_t bytes = static_cast<size_t>(job.cols) * sizeof(float);
  float bias[kNr] = {};
  if (g.bias != nullptr) std::memcpy(bias, g.bias + job.j0, bytes);
  const v128_t bias0 = wasm_v128_load(bias);
  const v128_t bias1 = wasm_v128_load(bias + 4);
  for (int r = 0; r < rows; ++r) {
    const float* sums = job.partial + (i + r) * kNr;
    float* out = g.out + (i + r) * n + job.j0;
    float old[kNr] = {};
    if (g.epilogue == Epilogue::kAccumulate) std::memcpy(old, out, bytes);
    v128_t v0 = wasm_v128_load(sums);
    v128_t v1 = wasm_v128_load(sums + 4);
    if (g.bias != nullptr) {
      v0 = wasm_f32x4_add(v0, bias0);
      v1 = wasm_f32x4_add(v1, bias1);
    }
    v0 = epilogue(g.epilogue, v0, wasm_v128_load(old));
    v1 = epilogue(g.epilogue, v1, wasm_v128_load(old + 4));
    if (job.cols == kNr) {
      wasm_v128_store(out, v0);
      wasm_v128_store(out + 4, v1);
    } else {
      float tmp[kNr];
      wasm_v128_store(tmp, v0);
      wasm_v128_store(tmp + 4, v1);
      std::memcpy(out, tmp, bytes);
    }
  }
}

// Rows [i, i + R) of the tile: R x 8 outputs, 2R accumulators.
template <int R>
inline void tile(const TileJob& job, int64_t i) {
  const GemmArgs& g = *job.g;
  const int64_t k = g.w.cols;
  v128_t acc[R][2];
  for (int r = 0; r < R; ++r) {
    if (job.first) {
      acc[r][0] = wasm_f32x4_splat(0.0f);
      acc[r][1] = wasm_f32x4_splat(0.0f);
    } else {
      acc[r][0] = wasm_v128_load(job.partial + (i + r) * kNr);
      acc[r][1] = wasm_v128_load(job.partial + (i + r) * kNr + 4);
    }
  }
  const float* a[R];
  for (int r = 0; r < R; ++r) a[r] = g.a + (i + r) * k + job.k0;
  // One k step per iteration, indexed from fixed pointers: V8 keeps the 8 accumulators, 2 panel
  // vectors and 4 splats in registers (it unrolls by two itself). Unrolling four steps here makes
  // clang hoist 8 panel vectors and V8 spill accumulators.
  const float* b = job.panel;
  for (int64_t t = 0; t < job.kc; ++t) {
    const v128_t b0 = wasm_v128_load(b + t * kNr);
    const v128_t b1 = wasm_v128_load(b + t * kNr + 4);
    for (int r = 0; r < R; ++r) {
      const v128_t av = wasm_v128_load32_splat(a[r] + t);
      acc[r][0] = madd(av, b0, acc[r][0]);
      acc[r][1] = madd(av, b1, acc[r][1]);
    }
  }
  // The accumulators leave registers here, through a plain buffer: indexing them in the loops below
  // (which the compiler does not unroll) would keep them in memory during the k loop as well.
  float* sums = job.partial + i * kNr;
  for (int r = 0; r < R; ++r) {
    wasm_v128_store(sums + r * kNr, acc[r][0]);
    wasm_v128_store(sums + r * kNr + 4, acc[r][1]);
  }
  if (!job.last) return;
  finish_rows(job, i, R);
}

template <DType D>
void gemm_4x8(const GemmArgs& g, int64_t n_begin, int64_t n_end, float* scratch) {
  const int64_t k = g.w.cols;
  float* panel = scratch;
  float* partial = scratch + kGemmKBlock * kNr;
  const int64_t blocks = std::max<int64_t>(1, (k + kGemmKBlock - 1) / kGemmKBlock);
  for (int64_t j0 = n_begin; j0 < n_end; j0 += kNr) {
    const int64_t cols = std::min(kNr, n_end - j0);
    for (int64_t blk = 0; blk < blocks; ++blk) {
      const int64_t k0 = blk * kGemmKBlock;
      const int64_t kc = std::min(kGemmKBlock, k - k0);
      const float* block = panel;
      if (g.w.layout == WeightLayout::kPanels8) {
        block = panel_block<D>(g.w, j0, k0, kc, panel);
      } else {
        pack_panel<D>(g.w, j0, cols, k0, kc, panel);
      }
      const TileJob job{&g, block, partial, k0, kc, j0, cols, blk == 0, blk == blocks - 1};
      int64_t i = 0;
      for (; i + kMr <= g.m; i += kMr) tile<kMr>(job, i);
      switch (g.m - i) {
        case 3: tile<3>(job, i); break;
        case 2: tile<2>(job, i); break;
        case 1: tile<1>(job, i); break;
        default: break;
      }
    }
  }
}

}  // namespace

size_t gemm_scratch_floats_simd128(int64_t m, int64_t) {
  // gemm_4x8's panel of kGemmKBlock × 8, and the 8-column partial sums of every row between blocks.
  return static_cast<size_t>(kGemmKBlock * kGemmTileCols + m * kGemmTileCols);
}

void gemm_f32_4x8_simd128(const GemmArgs& g, int64_t n_begin, int64_t n_end, float* scratch) {
  gemm_4x8<DType::kF32>(g, n_begin, n_end, scratch);
}
void gemm_f16_4x8_simd128(const GemmArgs& g, int64_t n_begin, int64_t n_end, float* scratch) {
  gemm_4x8<DType::kF16>(g, n_begin, n_end, scratch);
}
void gemm_bf16_4x8_simd128(const GemmArgs& g, int64_t n_begin, int64_t n_end, float* scratch) {
  gemm_4x8<DType::kBF16>(g, n_begin, n_end, scratch);
}
void gemm_q8_4x8_simd128(const GemmArgs& g, int64_t n_begin, int64_t n_end, float* scratch) {
  gemm_4x8<DType::kI8>(g, n_begin, n_end, scratch);
}

}  // namespace laya::kernels

#endif  // LAYA_SIMD128
