// The wasm SIMD128 integer GEMM (kernels/int8_gemm.h's scheme). For each block of 8 weight rows and
// kInt8GemmKBlock inputs, the int8 block is widened to int16 into a small panel laid out for
// i32x4.dot_i16x8_s: per pair of inputs (t, t + 1), two vectors of [row c at t, row c at t + 1] for
// rows 0-3 and 4-7. A 4x8 register tile then runs over every 4-row tile of the quantized
// activations: per pair, the 32-bit pair of each activation row splatted, dotted with the two panel
// vectors, added to 8 int32x4 accumulators (64 multiply-adds in 8 dots and 8 adds, twice the f32
// tile's 32 in 8 muls and 8 adds; unrolling two pairs spills accumulators in V8). At the end of each group of 64 inputs the accumulators are converted to f32, times the
// group's 8 weight scales, and added to the tile's per-row f32 sums, in group order as the scalar
// kernel adds them; the row scale, the bias and the epilogue (the scalar apply_epilogue, so GELU
// too agrees bit for bit) come once, after the last block.
//
// Widening once per block rather than in the inner loop: the block is reused by every row tile
// (m / 4 of them), so its cost is spread over m rows; weights stay q8 in memory (int16 copies would
// double them).
#include "kernels/int8_gemm.h"

#ifdef LAYA_SIMD128

#include <algorithm>
#include <cmath>
#include <cstring>

#include "graph/q8.h"
#include "kernels/gemm.h"  // apply_epilogue
#include "kernels/simd128.h"

namespace laya::kernels {

namespace {

constexpr int64_t kMr = kActivationTileRows;
constexpr int64_t kNr = kPanelRows;  // 8 weight rows per tile, the loader's panel height
constexpr int64_t kGroupsPerBlock = kInt8GemmKBlock / kQ8Group;
static_assert(kInt8GemmKBlock % kQ8Group == 0 && kQ8Group % 2 == 0, "blocks hold whole groups of input pairs");

// panel[16p + 8h + 2l + e] = w[j0 + 4h + l][k0 + 2p + e], zero past `cols` rows or past kc inputs;
// scales[8g + c] = the scale of group g of the block for row j0 + c, zero past `cols`.
void widen_block(const MatrixRef& w, int64_t j0, int64_t cols, int64_t k0, int64_t kc, int16_t* panel,
                 float* scales) {
  const int64_t pairs = (kc + 1) / 2;
  if (w.layout == WeightLayout::kPanels8 && cols == kNr && j0 % kNr == 0) {
    // Stored k-major, 8 bytes per input: a pair of inputs is 16 contiguous bytes, interleaved by
    // one shuffle into [row 0 at t, row 0 at t + 1, row 1 at t, ...] and widened in two halves.
    const std::byte* src = w.element(j0, k0);
    for (int64_t p = 0; p < pairs; ++p) {
      const bool whole = 2 * p + 1 < kc;
      const v128_t bytes = whole ? wasm_v128_load(src + 16 * p) : wasm_v128_load64_zero(src + 16 * p);
      const v128_t pairs_of_rows =
          wasm_i8x16_shuffle(bytes, bytes, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
      wasm_v128_store(panel + 16 * p, wasm_i16x8_extend_low_i8x16(pairs_of_rows));
      wasm_v128_store(panel + 16 * p + 8, wasm_i16x8_extend_high_i8x16(pairs_of_rows));
    }
  } else {
    // Weights in rows (the small heads) and edge panels, element by element.
    for (int64_t p = 0; p < pairs; ++p) {
      for (int64_t c = 0; c < kNr; ++c) {
        for (int64_t e = 0; e < 2; ++e) {
          const int64_t t = 2 * p + e;
          const bool inside = c < cols && t < kc;
          panel[16 * p + 8 * (c / 4) + 2 * (c % 4) + e] =
              inside ? static_cast<int8_t>(*w.element(j0 + c, k0 + t)) : int16_t{0};
        }
      }
    }
  }
  const int64_t groups = (kc + kQ8Group - 1) / kQ8Group;
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t c = 0; c < kNr; ++c) {
      scales[kNr * g + c] = c < cols ? load_scale(w.scale(j0 + c, k0 / kQ8Group + g)) : 0.0f;
    }
  }
}

struct TileJob {
  const Int8GemmArgs* g;
  const int16_t* panel;
  const float* scales;  // [groups of the block][8]
  float* sums;          // [m][8]: each row's f32 total so far
  int64_t k0, kc, j0, cols;
  bool first, last;
};

// Row scale, bias and epilogue for rows [i, i + rows) of the tile, into its valid columns of out.
void finish_rows(const TileJob& job, int64_t i, int64_t rows) {
  const Int8GemmArgs& g = *job.g;
  const int64_t n = g.w.rows;
  for (int64_t r = 0; r < rows; ++r) {
    const float* sums = job.sums + (i + r) * kNr;
    float* out = g.out + (i + r) * n + job.j0;
    const float a_scale = g.a_scales[i + r];
    for (int64_t c = 0; c < job.cols; ++c) {
      float v = sums[c] * a_scale;
      if (g.bias != nullptr) v += g.bias[job.j0 + c];
      out[c] = apply_epilogue(g.epilogue, v, out[c]);
    }
  }
}

// Rows [i, i + 4) of the tile over the block (rows past m are zero in the quantized activations):
// 4 x 8 outputs, 8 int32x4 accumulators. The 4 rows' pairs of one input pair are adjacent in the
// layout: 4 splatting loads at constant offsets from one pointer (a load each, where a shuffle
// from one 16-byte load would take a vector slot from the dots: measured slower).
inline void tile(const TileJob& job, int64_t i) {
  const Int8GemmArgs& g = *job.g;
  float* sums = job.sums + i * kNr;
  if (job.first) std::memset(sums, 0, sizeof(float) * kMr * kNr);
  const int16_t* a = g.a + quantized_index(g.w.cols, i, job.k0);
  for (int64_t t0 = 0; t0 < job.kc; t0 += kQ8Group) {
    const int64_t p0 = t0 / 2;
    const int64_t p1 = (std::min(job.kc, t0 + kQ8Group) + 1) / 2;
    v128_t acc[kMr][2];
    for (int r = 0; r < kMr; ++r) acc[r][0] = acc[r][1] = wasm_i32x4_splat(0);
    for (int64_t p = p0; p < p1; ++p) {
      const v128_t b0 = wasm_v128_load(job.panel + 16 * p);
      const v128_t b1 = wasm_v128_load(job.panel + 16 * p + 8);
      const v128_t a0 = wasm_v128_load32_splat(a + 8 * p + 0);
      acc[0][0] = wasm_i32x4_add(acc[0][0], wasm_i32x4_dot_i16x8(a0, b0));
      acc[0][1] = wasm_i32x4_add(acc[0][1], wasm_i32x4_dot_i16x8(a0, b1));
      const v128_t a1 = wasm_v128_load32_splat(a + 8 * p + 2);
      acc[1][0] = wasm_i32x4_add(acc[1][0], wasm_i32x4_dot_i16x8(a1, b0));
      acc[1][1] = wasm_i32x4_add(acc[1][1], wasm_i32x4_dot_i16x8(a1, b1));
      const v128_t a2 = wasm_v128_load32_splat(a + 8 * p + 4);
      acc[2][0] = wasm_i32x4_add(acc[2][0], wasm_i32x4_dot_i16x8(a2, b0));
      acc[2][1] = wasm_i32x4_add(acc[2][1], wasm_i32x4_dot_i16x8(a2, b1));
      const v128_t a3 = wasm_v128_load32_splat(a + 8 * p + 6);
      acc[3][0] = wasm_i32x4_add(acc[3][0], wasm_i32x4_dot_i16x8(a3, b0));
      acc[3][1] = wasm_i32x4_add(acc[3][1], wasm_i32x4_dot_i16x8(a3, b1));
    }
    const float* scale = job.scales + kNr * (t0 / kQ8Group);
    const v128_t s0 = wasm_v128_load(scale);
    const v128_t s1 = wasm_v128_load(scale + 4);
    for (int r = 0; r < kMr; ++r) {
      float* row = sums + r * kNr;
      const v128_t product0 = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(acc[r][0]), s0);
      const v128_t product1 = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(acc[r][1]), s1);
      wasm_v128_store(row, wasm_f32x4_add(wasm_v128_load(row), product0));
      wasm_v128_store(row + 4, wasm_f32x4_add(wasm_v128_load(row + 4), product1));
    }
  }
  if (job.last) finish_rows(job, i, std::min(kMr, g.m - i));
}

// The largest |x| of row[0, k), or a non-finite value if the row holds one (max propagates NaN).
float row_max_abs(const float* row, int64_t k) {
  v128_t max4 = wasm_f32x4_splat(0.0f);
  int64_t t = 0;
  for (; t + 4 <= k; t += 4) max4 = wasm_f32x4_max(max4, wasm_f32x4_abs(wasm_v128_load(row + t)));
  float lanes[4];
  wasm_v128_store(lanes, max4);
  float max = std::max(std::max(lanes[0], lanes[1]), std::max(lanes[2], lanes[3]));
  bool finite = std::isfinite(lanes[0]) && std::isfinite(lanes[1]) && std::isfinite(lanes[2]) && std::isfinite(lanes[3]);
  for (; t < k; ++t) {
    finite = finite && std::isfinite(row[t]);
    max = std::max(max, std::fabs(row[t]));
  }
  return finite ? max : NAN;
}

// round(x / scale) clamped to ±32767, as int32x4: the scalar quantizer's f32 division, rounding
// to nearest even and clamp, lane by lane.
inline v128_t quantize4(v128_t x, v128_t scale) {
  const v128_t limit = wasm_f32x4_splat(static_cast<float>(kActivationQMax));
  const v128_t v = wasm_f32x4_nearest(wasm_f32x4_div(x, scale));
  return wasm_i32x4_trunc_sat_f32x4(wasm_f32x4_pmax(wasm_f32x4_neg(limit), wasm_f32x4_pmin(limit, v)));
}

}  // namespace

size_t int8_gemm_scratch_floats_simd128(int64_t m) {
  // The widened block (kInt8GemmKBlock x 8 int16), its group scales, 8 sums for every row of
  // every 4-row tile.
  const int64_t rows = (m + kMr - 1) / kMr * kMr;
  return static_cast<size_t>(kInt8GemmKBlock * kNr / 2 + kGroupsPerBlock * kNr + rows * kNr);
}

void int8_gemm_4x8_simd128(const Int8GemmArgs& g, int64_t n_begin, int64_t n_end, float* scratch) {
  const int64_t k = g.w.cols;
  int16_t* panel = reinterpret_cast<int16_t*>(scratch);
  float* scales = scratch + kInt8GemmKBlock * kNr / 2;
  float* sums = scales + kGroupsPerBlock * kNr;
  const int64_t blocks = std::max<int64_t>(1, (k + kInt8GemmKBlock - 1) / kInt8GemmKBlock);
  for (int64_t j0 = n_begin; j0 < n_end; j0 += kNr) {
    const int64_t cols = std::min(kNr, n_end - j0);
    for (int64_t blk = 0; blk < blocks; ++blk) {
      const int64_t k0 = blk * kInt8GemmKBlock;
      const int64_t kc = std::min(kInt8GemmKBlock, k - k0);
      widen_block(g.w, j0, cols, k0, kc, panel, scales);
      const TileJob job{&g, panel, scales, sums, k0, kc, j0, cols, blk == 0, blk == blocks - 1};
      for (int64_t i = 0; i < g.m; i += kMr) tile(job, i);
    }
  }
}

void quantize_activations_i16_simd128(const float* a, int64_t m, int64_t k, int16_t* q, float* scales) {
  std::fill(q, q + quantized_activations_size(m, k), int16_t{0});
  const v128_t zero = wasm_f32x4_splat(0.0f);
  for (int64_t i0 = 0; i0 < m; i0 += kMr) {
    // The tile's 4 rows; past m, or where a row's scale is 0 or NaN, a row whose q stays 0.
    const float* rows[kMr];
    v128_t scale[kMr];
    bool quantized[kMr];
    for (int64_t r = 0; r < kMr; ++r) {
      const int64_t i = i0 + r;
      quantized[r] = false;
      rows[r] = nullptr;
      scale[r] = zero;
      if (i >= m) continue;
      const float max = row_max_abs(a + i * k, k);
      if (!std::isfinite(max) || max == 0.0f) {
        scales[i] = std::isfinite(max) ? 0.0f : NAN;
        continue;
      }
      scales[i] = max / static_cast<float>(kActivationQMax);
      scale[r] = wasm_f32x4_splat(scales[i]);
      rows[r] = a + i * k;
      quantized[r] = true;
    }
    // Four inputs (two pairs) of the 4 rows at a time: narrowed to int16 row by row, then the
    // rows' 32-bit pairs gathered into the layout's [pair][row][2].
    int16_t* out = q + quantized_index(k, i0, 0);
    int64_t t = 0;
    for (; t + 4 <= k; t += 4) {
      v128_t v[kMr];
      for (int64_t r = 0; r < kMr; ++r) {
        v[r] = quantized[r] ? quantize4(wasm_v128_load(rows[r] + t), scale[r]) : wasm_i32x4_splat(0);
      }
      const v128_t rows01 = wasm_i16x8_narrow_i32x4(v[0], v[1]);
      const v128_t rows23 = wasm_i16x8_narrow_i32x4(v[2], v[3]);
      wasm_v128_store(out + 4 * t, wasm_i32x4_shuffle(rows01, rows23, 0, 2, 4, 6));
      wasm_v128_store(out + 4 * t + 8, wasm_i32x4_shuffle(rows01, rows23, 1, 3, 5, 7));
    }
    for (; t < k; ++t) {
      for (int64_t r = 0; r < kMr; ++r) {
        if (!quantized[r]) continue;
        const v128_t v = quantize4(wasm_f32x4_splat(rows[r][t]), scale[r]);
        q[quantized_index(k, i0 + r, t)] = static_cast<int16_t>(wasm_i32x4_extract_lane(v, 0));
      }
    }
  }
}

}  // namespace laya::kernels

#endif  // LAYA_SIMD128
