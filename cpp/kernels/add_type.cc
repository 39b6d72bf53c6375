// Scalar AddType (laya-spec §3.5).
#include "kernels/add_type.h"

namespace laya::kernels {

void add_type_scalar(const MatrixRef& table, const Packing& p, float* h, int64_t seq_begin,
                     int64_t seq_end) {
  const int64_t width = table.cols;
  for (int64_t s = seq_begin; s < seq_end; ++s) {
    const int64_t type = p.qtypes[s];
    for (int64_t t = p.seq_starts[s]; t < p.seq_starts[s + 1]; ++t) {
      float* row = h + t * width;
      for (int64_t j = 0; j < width; ++j) row[j] += table.at(type, j);
    }
  }
}

}  // namespace laya::kernels
