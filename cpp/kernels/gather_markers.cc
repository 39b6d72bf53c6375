// Scalar GatherMarkers (laya-spec §3.7).
#include "kernels/gather_markers.h"

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

}  // namespace laya::kernels
