// Table lookups by id: Embed (out[t] = table[ids[t]], laya-spec §3.2) and AddType (every row of
// sequence s gets table[qtype[s]] added, laya-spec §3.5). Both convert the stored rows to f32
// exactly; they are memory bound and have only scalar kernels.
#pragma once

#include <cstdint>

#include "kernels/matrix.h"
#include "kernels/packing.h"

namespace laya::kernels {

// Token rows [row_begin, row_end) of out ([tokens, table.cols]).
using EmbedFn = void (*)(const MatrixRef& table, const int32_t* ids, float* out, int64_t row_begin,
                         int64_t row_end);
void embed_scalar(const MatrixRef& table, const int32_t* ids, float* out, int64_t row_begin,
                  int64_t row_end);

// Sequences [seq_begin, seq_end) of h ([tokens, table.cols]), in place.
using AddTypeFn = void (*)(const MatrixRef& table, const Packing& packing, float* h, int64_t seq_begin,
                           int64_t seq_end);
void add_type_scalar(const MatrixRef& table, const Packing& packing, float* h, int64_t seq_begin,
                     int64_t seq_end);

}  // namespace laya::kernels
