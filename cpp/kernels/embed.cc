// Scalar table lookups (Embed, AddType).
#include "kernels/embed.h"

namespace laya::kernels {

void embed_scalar(const MatrixRef& table, const int32_t* ids, float* out, int64_t row_begin,
                  int64_t row_end) {
  for (int64_t t = row_begin; t < row_end; ++t) table.convert_row(ids[t], out + t * table.cols);
}

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
