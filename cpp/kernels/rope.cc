// RoPE tables and the scalar rotation; the SIMD twin is in rope_simd128.cc, and
// kernels/kernel_table.h picks between them.
#include "kernels/rope.h"

#include <cassert>
#include <cmath>

namespace laya::kernels {

float rope_inv_freq(double theta, int64_t pair) {
  // As torch computes it: base ** (arange(0, 64, 2).float() / 64), all f32, then 1.0 / that.
  const float exponent = static_cast<float>(2 * pair) / static_cast<float>(kHeadDim);
  return 1.0f / std::pow(static_cast<float>(theta), exponent);
}

RopeTable make_rope_table(double theta, int64_t positions) {
  RopeTable t;
  t.theta = theta;
  t.positions = positions;
  t.cos.resize(static_cast<size_t>(positions * kRopePairs));
  t.sin.resize(t.cos.size());
  float inv_freq[kRopePairs];
  for (int64_t j = 0; j < kRopePairs; ++j) inv_freq[j] = rope_inv_freq(theta, j);
  for (int64_t p = 0; p < positions; ++p) {
    for (int64_t j = 0; j < kRopePairs; ++j) {
      const float angle = static_cast<float>(p) * inv_freq[j];
      t.cos[p * kRopePairs + j] = std::cos(angle);
      t.sin[p * kRopePairs + j] = std::sin(angle);
    }
  }
  return t;
}

void rope_f32_scalar(const RopeArgs& a, int64_t seq_begin, int64_t seq_end) {
  const int64_t width = 3 * a.heads * kHeadDim;
  for (int64_t s = seq_begin; s < seq_end; ++s) {
    const int64_t start = a.seq_starts[s];
    const int64_t len = a.seq_starts[s + 1] - start;
    assert(len <= a.table->positions && "the RoPE table covers the bucket's longest sequence");
    for (int64_t p = 0; p < len; ++p) {
      const float* c = a.table->cos.data() + p * kRopePairs;
      const float* sn = a.table->sin.data() + p * kRopePairs;
      float* row = a.qkv + (start + p) * width;
      // q heads then k heads: the first 2 · heads heads of the row.
      for (int64_t h = 0; h < 2 * a.heads; ++h) {
        float* x = row + h * kHeadDim;
        for (int64_t j = 0; j < kRopePairs; ++j) {
          const float lo = x[j];
          const float hi = x[j + kRopePairs];
          x[j] = lo * c[j] - hi * sn[j];
          x[j + kRopePairs] = hi * c[j] + lo * sn[j];
        }
      }
    }
  }
}

}  // namespace laya::kernels
