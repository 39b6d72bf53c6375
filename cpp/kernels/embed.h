// Embed (laya-spec §3.2): out[t] = table[ids[t]], the stored row converted to f32 exactly. Memory
// bound, it has only a scalar kernel.
#pragma once

#include <cstdint>

#include "kernels/matrix.h"

namespace laya::kernels {

// Token rows [row_begin, row_end) of out ([tokens, table.cols]).
using EmbedFn = void (*)(const MatrixRef& table, const int32_t* ids, float* out, int64_t row_begin,
                         int64_t row_end);
void embed_scalar(const MatrixRef& table, const int32_t* ids, float* out, int64_t row_begin,
                  int64_t row_end);

}  // namespace laya::kernels
