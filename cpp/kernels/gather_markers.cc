// Scalar GatherMarkers and ActFeatures (laya-spec §3.7, §3.8).
#include "kernels/markers.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>

namespace laya::kernels {

void gather_markers_f32_scalar(const float* h, float* out, int64_t width, const Packing& p,
                               int64_t seq_begin, int64_t seq_end) {
  for (int64_t s = seq_begin; s < seq_end; ++s) {
    for (int64_t m = p.marker_starts[s]; m < p.marker_starts[s + 1]; ++m) {
      const int64_t row = p.seq_starts[s] + p.markers[m];
      std::memcpy(out + m * width, h + row * width, static_cast<size_t>(width) * sizeof(float));
    }
  }
}

void act_features_of(const float* logits, int64_t k, float features[4]) {
  assert(k >= 1 && "act features need at least one marker (checked when a batch runs)");
  float max = logits[0];
  for (int64_t i = 1; i < k; ++i) max = std::max(max, logits[i]);
  // The softmax as torch's f32 softmax: exp(x − max), summed in order, each divided by the sum.
  float sum = 0.0f;
  for (int64_t i = 0; i < k; ++i) sum += std::exp(logits[i] - max);
  float top1 = 0.0f;
  float top2 = 0.0f;
  float entropy = 0.0f;
  for (int64_t i = 0; i < k; ++i) {
    const float p = std::exp(logits[i] - max) / sum;
    entropy += p * std::log(std::max(p, 1e-9f));
    if (p > top1) {
      top2 = top1;
      top1 = p;
    } else if (p > top2) {
      top2 = p;
    }
  }
  const float k_eff = static_cast<float>(std::max<int64_t>(k, 2));
  features[0] = top1;
  features[1] = top1 - top2;
  features[2] = -entropy / std::log(k_eff);
  features[3] = k_eff / 255.0f;
}

void act_features_f32_scalar(const float* h, const float* logits, float* out, int64_t width,
                             const Packing& p, int64_t seq_begin, int64_t seq_end) {
  for (int64_t s = seq_begin; s < seq_end; ++s) {
    float* row = out + s * (width + 4);
    std::memcpy(row, h + static_cast<int64_t>(p.seq_starts[s]) * width,
                static_cast<size_t>(width) * sizeof(float));
    const int64_t first = p.marker_starts[s];
    act_features_of(logits + first, p.marker_starts[s + 1] - first, row + width);
  }
}

}  // namespace laya::kernels
