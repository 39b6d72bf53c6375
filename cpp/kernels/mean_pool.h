// MeanPool (laya-spec §3.10): per sequence, the mean of its token rows, every token included (specials
// too; a packed batch has no padding). Summed in f64 and rounded once, so the result does not
// depend on the sequence's length beyond the math.
#pragma once

#include <cstdint>

#include "kernels/packing.h"

namespace laya::kernels {

// Sequence rows [seq_begin, seq_end) of out ([seqs, width]).
using MeanPoolFn = void (*)(const float* h, float* out, int64_t width, const Packing& packing,
                            int64_t seq_begin, int64_t seq_end);
void mean_pool_f32_scalar(const float* h, float* out, int64_t width, const Packing& packing,
                          int64_t seq_begin, int64_t seq_end);

}  // namespace laya::kernels
