// GatherMarkers (laya-spec §3.7): the token row of each option marker, the rows the scorer reads.
// Tiny next to the encoder, it has only a scalar kernel.
#pragma once

#include <cstdint>

#include "kernels/packing.h"

namespace laya::kernels {

// Marker rows of sequences [seq_begin, seq_end): out[marker m] = h[its token row].
using GatherMarkersFn = void (*)(const float* h, float* out, int64_t width, const Packing& packing,
                                 int64_t seq_begin, int64_t seq_end);
void gather_markers_f32_scalar(const float* h, float* out, int64_t width, const Packing& packing,
                               int64_t seq_begin, int64_t seq_end);

}  // namespace laya::kernels
