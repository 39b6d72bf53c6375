// The scalar MeanPool (laya-spec §3.10).
#include "kernels/mean_pool.h"

namespace laya::kernels {

void mean_pool_f32_scalar(const float* h, float* out, int64_t width, const Packing& p,
                          int64_t seq_begin, int64_t seq_end) {
  for (int64_t s = seq_begin; s < seq_end; ++s) {
    const int64_t first = p.seq_starts[s];
    const int64_t len = p.seq_starts[s + 1] - first;
    for (int64_t j = 0; j < width; ++j) {
      double sum = 0.0;
      for (int64_t t = 0; t < len; ++t) sum += h[(first + t) * width + j];
      // An empty sequence cannot reach a kernel (a batch rejects it); max(len, 1) as upstream's
      // clamp keeps the division defined all the same.
      out[s * width + j] = static_cast<float>(sum / static_cast<double>(len > 0 ? len : 1));
    }
  }
}

}  // namespace laya::kernels
