// AddType (laya-spec §3.5): every token row of sequence s gets table[qtype[s]] added, the stored row
// converted to f32 exactly. Memory bound, it has only a scalar kernel.
#pragma once

#include <cstdint>

#include "kernels/matrix.h"
#include "kernels/packing.h"

namespace laya::kernels {

// Sequences [seq_begin, seq_end) of h ([tokens, table.cols]), in place.
using AddTypeFn = void (*)(const MatrixRef& table, const Packing& packing, float* h, int64_t seq_begin,
                           int64_t seq_end);
void add_type_scalar(const MatrixRef& table, const Packing& packing, float* h, int64_t seq_begin,
                     int64_t seq_end);

}  // namespace laya::kernels
