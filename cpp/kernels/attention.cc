// The scalar attention (the oracle: one query at a time, the full row of scores, then the softmax).
// The SIMD twin is in attention_simd128.cc; kernels/kernel_table.h picks between them.
#include "kernels/attention.h"

#include <algorithm>
#include <cmath>

#include "kernels/madd.h"
#include "kernels/rope.h"

namespace laya::kernels {

void attention_f32_scalar(const AttentionArgs& a, int64_t item_begin, int64_t item_end, float* scores) {
  const int64_t d = a.heads * kHeadDim;
  const int64_t stride = 3 * d;
  for (int64_t item = item_begin; item < item_end; ++item) {
    const int64_t s = item / a.heads;
    const int64_t h = item % a.heads;
    const int64_t start = a.seq_starts[s];
    const int64_t len = a.seq_starts[s + 1] - start;
    const float* rows = a.qkv + start * stride;
    for (int64_t i = 0; i < len; ++i) {
      const int64_t lo = a.window < 0 ? 0 : std::max<int64_t>(0, i - a.window);
      const int64_t hi = a.window < 0 ? len : std::min<int64_t>(len, i + a.window + 1);
      const float* q = rows + i * stride + h * kHeadDim;
      float max = -INFINITY;
      for (int64_t j = lo; j < hi; ++j) {
        const float* k = rows + j * stride + d + h * kHeadDim;
        float dot = 0.0f;
        // madd (kernels/madd.h): the SIMD kernel's multiply-add, fused in the relaxed-SIMD build.
        for (int64_t t = 0; t < kHeadDim; ++t) dot = madd(q[t], k[t], dot);
        scores[j] = dot * kAttentionScale;
        max = std::max(max, scores[j]);
      }
      float sum = 0.0f;
      for (int64_t j = lo; j < hi; ++j) {
        scores[j] = std::exp(scores[j] - max);
        sum += scores[j];
      }
      float* o = a.out + (start + i) * d + h * kHeadDim;
      for (int64_t t = 0; t < kHeadDim; ++t) {
        float acc = 0.0f;
        for (int64_t j = lo; j < hi; ++j) acc = madd(scores[j], rows[j * stride + 2 * d + h * kHeadDim + t], acc);
        o[t] = acc / sum;
      }
    }
  }
}

size_t attention_scratch_floats_scalar(int64_t max_seq_len) {
  return static_cast<size_t>(max_seq_len);  // one query's scores
}

}  // namespace laya::kernels
