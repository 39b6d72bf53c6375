// The wasm SIMD128 attention, per sequence and head:
// - the keys are packed transposed ([64][keys]), so that 4 queries against 8 keys is a 4x8
//   register tile like the GEMM's; the values are packed into consecutive rows ([keys][64]): in
//   the qkv rows they sit 3·d floats apart, a multiple of 4 KiB that maps them all to the same few
//   L1 sets;
// - an online softmax (running max and sum per query, the accumulated output rescaled when the
//   max grows) consumes one key tile at a time, the 4 queries of a tile in the 4 lanes of a
//   vector, so no more than a tile of scores ever exists;
// - key tiles start at multiples of 8 from the sequence's start, and keys outside a query's window
//   add exact zeros to it, so a query's result does not depend on which query tile it sits in, nor
//   on the rest of the batch.
#include "kernels/attention.h"

#ifdef LAYA_SIMD128

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

#include "kernels/madd.h"
#include "kernels/rope.h"
#include "kernels/simd128.h"
#include "kernels/simd128_math.h"

namespace laya::kernels {

namespace {

constexpr int64_t kQt = kAttentionQueryTile;
constexpr int64_t kKt = kAttentionKeyTile;

struct Head {
  const float* rows;  // the sequence's first qkv row
  int64_t stride;     // qkv row width
  int64_t len;
  int64_t window;     // < 0: all keys
  const float* kt;    // [64][keys], keys transposed
  int64_t keys;       // len rounded up to a key tile
  const float* v;     // [keys][64], values in consecutive rows
};

// Scores of the 4 queries of a tile (qt: [64][4], the queries interleaved so that one pointer
// addresses all four at constant offsets) against keys [j0, j0 + 8), unscaled: s[r] holds query r's.
inline void score_tile(const float* qt, const Head& hd, int64_t j0, v128_t s[kQt][2]) {
  for (int r = 0; r < kQt; ++r) s[r][0] = s[r][1] = wasm_f32x4_splat(0.0f);
  const float* k = hd.kt + j0;
  for (int t = 0; t < kHeadDim; ++t, k += hd.keys) {
    const v128_t k0 = wasm_v128_load(k);
    const v128_t k1 = wasm_v128_load(k + 4);
    for (int r = 0; r < kQt; ++r) {
      const v128_t qv = wasm_v128_load32_splat(qt + t * kQt + r);
      s[r][0] = madd(qv, k0, s[r][0]);
      s[r][1] = madd(qv, k1, s[r][1]);
    }
  }
}

inline v128_t lane_splat(v128_t v, int r) {
  switch (r) {
    case 0: return wasm_i32x4_shuffle(v, v, 0, 0, 0, 0);
    case 1: return wasm_i32x4_shuffle(v, v, 1, 1, 1, 1);
    case 2: return wasm_i32x4_shuffle(v, v, 2, 2, 2, 2);
    default: return wasm_i32x4_shuffle(v, v, 3, 3, 3, 3);
  }
}

// The online softmax of the 4 queries of a tile, one lane per query: the running max (−FLT_MAX
// before any key, so the first rescale is e^(−huge) = 0 rather than e^(−inf + inf)) and sum.
struct TileSoftmax {
  v128_t max = wasm_f32x4_splat(-FLT_MAX);
  v128_t sum = wasm_f32x4_splat(0.0f);

  // Folds one key tile's scores (s, unscaled; lanes a query does not see are masked with −inf by
  // the caller) in: writes the probabilities relative to the new max into p and returns the
  // factor each query's accumulated output must be rescaled by. A query that sees no key of the
  // tile keeps its max, gets p = 0 and a factor e^0 = 1: it is left exactly as it was.
  v128_t step(const v128_t x[kQt][2], float p[kQt][kKt]) {
    v128_t halves[kQt];
    for (int r = 0; r < kQt; ++r) halves[r] = wasm_f32x4_pmax(x[r][0], x[r][1]);
    const v128_t new_max = wasm_f32x4_pmax(max, simd::row_maxes(halves));
    const v128_t alpha = simd::exp_f32x4(wasm_f32x4_sub(max, new_max));
    v128_t sums[kQt];
    for (int r = 0; r < kQt; ++r) {
      const v128_t m = lane_splat(new_max, r);
      const v128_t p0 = simd::exp_f32x4(wasm_f32x4_sub(x[r][0], m));
      const v128_t p1 = simd::exp_f32x4(wasm_f32x4_sub(x[r][1], m));
      wasm_v128_store(p[r], p0);
      wasm_v128_store(p[r] + 4, p1);
      sums[r] = wasm_f32x4_add(p0, p1);
    }
    sum = wasm_f32x4_add(wasm_f32x4_mul(sum, alpha), simd::row_sums(sums));
    max = new_max;
    return alpha;
  }
};

// Scaled scores, with −inf for keys of [j0, j0 + 8) outside [lo[r], hi[r]) for query r.
inline void scale_and_mask(const v128_t s[kQt][2], int64_t j0, const int64_t lo[kQt], const int64_t hi[kQt],
                           bool all_visible, v128_t x[kQt][2]) {
  const v128_t scale = wasm_f32x4_splat(kAttentionScale);
  for (int r = 0; r < kQt; ++r) {
    x[r][0] = wasm_f32x4_mul(s[r][0], scale);
    x[r][1] = wasm_f32x4_mul(s[r][1], scale);
  }
  if (all_visible) return;
  const v128_t idx0 = wasm_i32x4_add(wasm_i32x4_make(0, 1, 2, 3), wasm_i32x4_splat(static_cast<int32_t>(j0)));
  const v128_t idx1 = wasm_i32x4_add(idx0, wasm_i32x4_splat(4));
  const v128_t neg_inf = wasm_f32x4_splat(-INFINITY);
  for (int r = 0; r < kQt; ++r) {
    const v128_t l = wasm_i32x4_splat(static_cast<int32_t>(lo[r]));
    const v128_t h = wasm_i32x4_splat(static_cast<int32_t>(hi[r]));
    x[r][0] = wasm_v128_bitselect(x[r][0], neg_inf, wasm_v128_and(wasm_i32x4_ge(idx0, l), wasm_i32x4_lt(idx0, h)));
    x[r][1] = wasm_v128_bitselect(x[r][1], neg_inf, wasm_v128_and(wasm_i32x4_ge(idx1, l), wasm_i32x4_lt(idx1, h)));
  }
}

// acc[r] = acc[r]·alpha[r] + Σ_j p[r][j − j0]·v_j over keys [j0, jend), for the 4 queries of a tile:
// a 4x8 register tile per 8 output columns, like the GEMM's. A key a query does not see has
// p = 0 and adds an exact zero, so each query's bits are those of summing only its own keys.
inline void accumulate_values(float* acc, const float p[kQt][kKt], v128_t alpha, const Head& hd, int64_t j0,
                              int64_t jend) {
  for (int64_t c = 0; c < kHeadDim; c += 8) {
    v128_t o[kQt][2];
    for (int r = 0; r < kQt; ++r) {
      const v128_t av = lane_splat(alpha, r);
      o[r][0] = wasm_f32x4_mul(wasm_v128_load(acc + r * kHeadDim + c), av);
      o[r][1] = wasm_f32x4_mul(wasm_v128_load(acc + r * kHeadDim + c + 4), av);
    }
    for (int64_t j = j0; j < jend; ++j) {
      const float* v = hd.v + j * kHeadDim + c;
      const v128_t v0 = wasm_v128_load(v);
      const v128_t v1 = wasm_v128_load(v + 4);
      for (int r = 0; r < kQt; ++r) {
        const v128_t pv = wasm_v128_load32_splat(&p[r][j - j0]);
        o[r][0] = madd(pv, v0, o[r][0]);
        o[r][1] = madd(pv, v1, o[r][1]);
      }
    }
    for (int r = 0; r < kQt; ++r) {
      wasm_v128_store(acc + r * kHeadDim + c, o[r][0]);
      wasm_v128_store(acc + r * kHeadDim + c + 4, o[r][1]);
    }
  }
}

// `acc` holds the query tile's outputs [4][64] and `qt` its queries [64][4].
void attend_head(const Head& hd, int64_t h, float* out, int64_t d, float* acc, float* qt) {
  const int64_t w = hd.window < 0 ? hd.len : hd.window;  // a window of len sees every key
  for (int64_t i0 = 0; i0 < hd.len; i0 += kQt) {
    const int64_t nq = std::min(kQt, hd.len - i0);
    int64_t lo[kQt], hi[kQt];  // query r sees keys [lo[r], hi[r])
    for (int r = 0; r < kQt; ++r) {
      // Rows past the sequence repeat its last query; their results are dropped.
      const int64_t i = i0 + std::min<int64_t>(r, nq - 1);
      const float* q = hd.rows + i * hd.stride + h * kHeadDim;
      for (int t = 0; t < kHeadDim; ++t) qt[t * kQt + r] = q[t];
      lo[r] = std::max<int64_t>(0, i - w);
      hi[r] = std::min<int64_t>(hd.len, i + w + 1);
    }
    std::fill(acc, acc + kQt * kHeadDim, 0.0f);
    TileSoftmax softmax;
    // Key tiles between the first query's first key and the last query's last one; a tile inside
    // every query's window (most of them) needs no mask.
    for (int64_t j0 = lo[0] / kKt * kKt; j0 < hi[kQt - 1]; j0 += kKt) {
      const bool all_visible = j0 >= lo[kQt - 1] && j0 + kKt <= hi[0];
      v128_t s[kQt][2], x[kQt][2];
      score_tile(qt, hd, j0, s);
      scale_and_mask(s, j0, lo, hi, all_visible, x);
      float p[kQt][kKt];
      const v128_t alpha = softmax.step(x, p);
      accumulate_values(acc, p, alpha, hd, j0, std::min(j0 + kKt, hd.len));
    }
    float sums[kQt];
    wasm_v128_store(sums, softmax.sum);
    for (int64_t r = 0; r < nq; ++r) {
      float* o = out + (i0 + r) * d + h * kHeadDim;
      const v128_t sum = wasm_f32x4_splat(sums[r]);
      for (int64_t c = 0; c < kHeadDim; c += 4) {
        wasm_v128_store(o + c, wasm_f32x4_div(wasm_v128_load(acc + r * kHeadDim + c), sum));
      }
    }
  }
}

// Keys [0, len) of one head transposed into kt ([64][keys]) and its values copied into v
// ([keys][64]); keys [len, keys) are zero in both.
void pack_keys_and_values(const float* rows, int64_t stride, int64_t k_col, int64_t v_col, int64_t len,
                          int64_t keys, float* kt, float* v) {
  int64_t j = 0;
  // Four keys at a time: 4x4 blocks of (key, dim) transposed.
  for (; j + 4 <= len; j += 4) {
    const float* k0 = rows + j * stride + k_col;
    for (int64_t t = 0; t < kHeadDim; t += 4) {
      v128_t r[4];
      for (int i = 0; i < 4; ++i) r[i] = wasm_v128_load(k0 + i * stride + t);
      simd::transpose4x4(r);
      for (int i = 0; i < 4; ++i) wasm_v128_store(kt + (t + i) * keys + j, r[i]);
    }
  }
  for (; j < len; ++j) {
    for (int64_t t = 0; t < kHeadDim; ++t) kt[t * keys + j] = rows[j * stride + k_col + t];
  }
  for (j = len; j < keys; ++j) {
    for (int64_t t = 0; t < kHeadDim; ++t) kt[t * keys + j] = 0.0f;
  }
  for (j = 0; j < len; ++j) std::memcpy(v + j * kHeadDim, rows + j * stride + v_col, kHeadDim * sizeof(float));
  std::fill(v + len * kHeadDim, v + keys * kHeadDim, 0.0f);
}

}  // namespace

size_t attention_scratch_floats_simd128(int64_t max_seq_len) {
  // attention_f32_4x8_simd128's layout: the head's keys transposed, [64][len rounded up to a key
  // tile], its values [keys][64], and a query tile's accumulators [4][64] and queries [64][4].
  const int64_t keys = (max_seq_len + kKt - 1) / kKt * kKt;
  return static_cast<size_t>(2 * kHeadDim * keys + 2 * kQt * kHeadDim);
}

void attention_f32_4x8_simd128(const AttentionArgs& a, int64_t item_begin, int64_t item_end, float* scratch) {
  const int64_t d = a.heads * kHeadDim;
  const int64_t stride = 3 * d;
  for (int64_t item = item_begin; item < item_end; ++item) {
    const int64_t s = item / a.heads;
    const int64_t h = item % a.heads;
    const int64_t start = a.seq_starts[s];
    const int64_t len = a.seq_starts[s + 1] - start;
    const int64_t keys = (len + kKt - 1) / kKt * kKt;
    float* kt = scratch;
    float* v = kt + kHeadDim * keys;
    float* acc = v + kHeadDim * keys;
    float* qt = acc + kQt * kHeadDim;
    const float* rows = a.qkv + start * stride;
    pack_keys_and_values(rows, stride, d + h * kHeadDim, 2 * d + h * kHeadDim, len, keys, kt, v);
    const Head hd{rows, stride, len, a.window, kt, keys, v};
    attend_head(hd, h, a.out + start * d, d, acc, qt);
  }
}

}  // namespace laya::kernels

#endif  // LAYA_SIMD128
