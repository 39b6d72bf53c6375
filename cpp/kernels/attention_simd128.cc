// The wasm SIMD128 attention. Per sequence and head, the keys are packed transposed ([64][keys]) so
// that a tile of 4 queries against 8 keys is a 4x8 register tile like the GEMM's, and the values
// are packed into consecutive rows ([keys][64]): in the qkv rows they sit 3·d floats apart, a
// multiple of 4 KiB that puts every value row in the same few L1 sets; an online softmax
// (running max and sum per query, the accumulated output rescaled when the max grows) consumes one
// key tile at a time, so no more than a tile of scores ever exists. Key tiles start at multiples of 8
// from the sequence's start and keys outside a query's window add exact zeros to it, so a query's
// result does not depend on which query tile it sits in, nor on the rest of the batch.
#include "kernels/attention.h"

#ifdef __wasm_simd128__

#include <wasm_simd128.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/rope.h"
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

// Scores of up to 4 queries (q rows) against keys [j0, j0 + 8), unscaled, row-major [4][8].
inline void score_tile(const float* const q[kQt], const Head& hd, int64_t j0, float s[kQt][kKt]) {
  v128_t acc[kQt][2];
  for (int r = 0; r < kQt; ++r) acc[r][0] = acc[r][1] = wasm_f32x4_splat(0.0f);
  const float* k = hd.kt + j0;
  for (int64_t t = 0; t < kHeadDim; ++t, k += hd.keys) {
    const v128_t k0 = wasm_v128_load(k);
    const v128_t k1 = wasm_v128_load(k + 4);
    for (int r = 0; r < kQt; ++r) {
      const v128_t qv = wasm_v128_load32_splat(q[r] + t);
      acc[r][0] = wasm_f32x4_add(acc[r][0], wasm_f32x4_mul(qv, k0));
      acc[r][1] = wasm_f32x4_add(acc[r][1], wasm_f32x4_mul(qv, k1));
    }
  }
  for (int r = 0; r < kQt; ++r) {
    wasm_v128_store(s[r], acc[r][0]);
    wasm_v128_store(s[r] + 4, acc[r][1]);
  }
}

// One query's online-softmax state: running max and running sum.
struct QueryState {
  float max;
  float sum;
};

// Folds keys [jlo, jhi) of the tile starting at j0 (scores in `s`, unscaled) into query state `q`:
// writes the tile's probabilities relative to the new max into p (0 outside [jlo, jhi)) and returns
// the factor the query's accumulated output must be rescaled by.
inline float softmax_step(QueryState& q, const float s[kKt], int64_t j0, int64_t jlo, int64_t jhi, float p[kKt]) {
  const v128_t lane = wasm_i32x4_make(0, 1, 2, 3);
  const v128_t idx0 = wasm_i32x4_add(lane, wasm_i32x4_splat(static_cast<int32_t>(j0)));
  const v128_t idx1 = wasm_i32x4_add(idx0, wasm_i32x4_splat(4));
  const v128_t lo = wasm_i32x4_splat(static_cast<int32_t>(jlo));
  const v128_t hi = wasm_i32x4_splat(static_cast<int32_t>(jhi));
  const v128_t in0 = wasm_v128_and(wasm_i32x4_ge(idx0, lo), wasm_i32x4_lt(idx0, hi));
  const v128_t in1 = wasm_v128_and(wasm_i32x4_ge(idx1, lo), wasm_i32x4_lt(idx1, hi));
  const v128_t scale = wasm_f32x4_splat(kAttentionScale);
  const v128_t neg_inf = wasm_f32x4_splat(-INFINITY);
  const v128_t x0 = wasm_v128_bitselect(wasm_f32x4_mul(wasm_v128_load(s), scale), neg_inf, in0);
  const v128_t x1 = wasm_v128_bitselect(wasm_f32x4_mul(wasm_v128_load(s + 4), scale), neg_inf, in1);
  const float new_max = std::max(q.max, simd::hmax(wasm_f32x4_max(x0, x1)));
  const v128_t m = wasm_f32x4_splat(new_max);
  // The first tile a query sees has nothing to rescale (max was −inf): alpha = 0.
  const float alpha =
      q.max == -INFINITY ? 0.0f
                         : wasm_f32x4_extract_lane(simd::exp_f32x4(wasm_f32x4_splat(q.max - new_max)), 0);
  // Masked lanes are −inf: their exp is exactly 0.
  const v128_t p0 = simd::exp_f32x4(wasm_f32x4_sub(x0, m));
  const v128_t p1 = simd::exp_f32x4(wasm_f32x4_sub(x1, m));
  q.sum = q.sum * alpha + simd::hsum(wasm_f32x4_add(p0, p1));
  q.max = new_max;
  wasm_v128_store(p, p0);
  wasm_v128_store(p + 4, p1);
  return alpha;
}

// acc[r] = acc[r]·alpha[r] + Σ_j p[r][j − j0]·v_j over keys [j0, jend), for the 4 queries of a tile:
// a 4x8 register tile per 8 output columns, like the GEMM's. A key a query does not see has
// p = 0 and adds an exact zero, so each query's bits are those of summing only its own keys.
inline void accumulate_values(float* acc, const float p[kQt][kKt], const float alpha[kQt], const Head& hd,
                              int64_t j0, int64_t jend) {
  for (int64_t c = 0; c < kHeadDim; c += 8) {
    v128_t o[kQt][2];
    for (int r = 0; r < kQt; ++r) {
      const v128_t av = wasm_f32x4_splat(alpha[r]);
      o[r][0] = wasm_f32x4_mul(wasm_v128_load(acc + r * kHeadDim + c), av);
      o[r][1] = wasm_f32x4_mul(wasm_v128_load(acc + r * kHeadDim + c + 4), av);
    }
    for (int64_t j = j0; j < jend; ++j) {
      const float* v = hd.v + j * kHeadDim + c;
      const v128_t v0 = wasm_v128_load(v);
      const v128_t v1 = wasm_v128_load(v + 4);
      for (int r = 0; r < kQt; ++r) {
        const v128_t pv = wasm_v128_load32_splat(&p[r][j - j0]);
        o[r][0] = wasm_f32x4_add(o[r][0], wasm_f32x4_mul(pv, v0));
        o[r][1] = wasm_f32x4_add(o[r][1], wasm_f32x4_mul(pv, v1));
      }
    }
    for (int r = 0; r < kQt; ++r) {
      wasm_v128_store(acc + r * kHeadDim + c, o[r][0]);
      wasm_v128_store(acc + r * kHeadDim + c + 4, o[r][1]);
    }
  }
}

void attend_head(const Head& hd, int64_t h, float* out, int64_t d, float* acc) {
  for (int64_t i0 = 0; i0 < hd.len; i0 += kQt) {
    const int64_t nq = std::min(kQt, hd.len - i0);
    const float* q[kQt];
    QueryState state[kQt];
    for (int r = 0; r < kQt; ++r) {
      // Rows past the sequence repeat its last query; their results are dropped.
      q[r] = hd.rows + (i0 + std::min<int64_t>(r, nq - 1)) * hd.stride + h * kHeadDim;
      state[r] = {-INFINITY, 0.0f};
    }
    std::fill(acc, acc + kQt * kHeadDim, 0.0f);
    const int64_t lo = hd.window < 0 ? 0 : std::max<int64_t>(0, i0 - hd.window);
    const int64_t hi = hd.window < 0 ? hd.len : std::min<int64_t>(hd.len, i0 + nq - 1 + hd.window + 1);
    for (int64_t j0 = lo / kKt * kKt; j0 < hi; j0 += kKt) {
      float s[kQt][kKt];
      score_tile(q, hd, j0, s);
      float p[kQt][kKt] = {};
      float alpha[kQt] = {1.0f, 1.0f, 1.0f, 1.0f};
      bool any = false;
      for (int64_t r = 0; r < nq; ++r) {
        const int64_t i = i0 + r;
        const int64_t ilo = hd.window < 0 ? 0 : std::max<int64_t>(0, i - hd.window);
        const int64_t ihi = hd.window < 0 ? hd.len : std::min<int64_t>(hd.len, i + hd.window + 1);
        const int64_t jlo = std::max(j0, ilo);
        const int64_t jhi = std::min({j0 + kKt, ihi, hd.len});
        if (jlo >= jhi) continue;  // p stays 0 and alpha 1: the tile leaves this query exactly as it was
        alpha[r] = softmax_step(state[r], s[r], j0, jlo, jhi, p[r]);
        any = true;
      }
      if (any) accumulate_values(acc, p, alpha, hd, j0, std::min(j0 + kKt, hd.len));
    }
    for (int64_t r = 0; r < nq; ++r) {
      float* o = out + (i0 + r) * d + h * kHeadDim;
      const v128_t sum = wasm_f32x4_splat(state[r].sum);
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
  // Four keys at a time: 4x4 blocks of (key, dim) transposed with shuffles.
  for (; j + 4 <= len; j += 4) {
    const float* k0 = rows + j * stride + k_col;
    for (int64_t t = 0; t < kHeadDim; t += 4) {
      const v128_t r0 = wasm_v128_load(k0 + t);
      const v128_t r1 = wasm_v128_load(k0 + stride + t);
      const v128_t r2 = wasm_v128_load(k0 + 2 * stride + t);
      const v128_t r3 = wasm_v128_load(k0 + 3 * stride + t);
      const v128_t t0 = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5);
      const v128_t t1 = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7);
      const v128_t t2 = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5);
      const v128_t t3 = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7);
      float* out = kt + t * keys + j;
      wasm_v128_store(out, wasm_i32x4_shuffle(t0, t2, 0, 1, 4, 5));
      wasm_v128_store(out + keys, wasm_i32x4_shuffle(t0, t2, 2, 3, 6, 7));
      wasm_v128_store(out + 2 * keys, wasm_i32x4_shuffle(t1, t3, 0, 1, 4, 5));
      wasm_v128_store(out + 3 * keys, wasm_i32x4_shuffle(t1, t3, 2, 3, 6, 7));
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
    const float* rows = a.qkv + start * stride;
    pack_keys_and_values(rows, stride, d + h * kHeadDim, 2 * d + h * kHeadDim, len, keys, kt, v);
    const Head hd{rows, stride, len, a.window, kt, keys, v};
    attend_head(hd, h, a.out + start * d, d, acc);
  }
}

}  // namespace laya::kernels

#endif  // __wasm_simd128__
