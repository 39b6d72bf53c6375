// Scalar Embed (laya-spec §3.2).
#include "kernels/embed.h"

namespace laya::kernels {

void embed_scalar(const MatrixRef& table, const int32_t* ids, float* out, int64_t row_begin,
                  int64_t row_end) {
  for (int64_t t = row_begin; t < row_end; ++t) table.convert_row(ids[t], out + t * table.cols);
}

}  // namespace laya::kernels
