// The GEMM's panel layout (graph/weights.h WeightLayout::kPanels8): an [n, k] matrix from rows into
// panels of 8 rows stored k-major, so that any block of k of a panel is contiguous. A panel covers
// the same bytes as the 8 rows it is made of, so the arrangement is done in place, one panel at a
// time, through a copy of 8 rows.
#pragma once

#include <cstddef>
#include <cstdint>

namespace laya::kernels {

// Bytes of scratch arrange_panels_in_place needs for rows of k elements of `element_size` bytes.
size_t panel_scratch_bytes(int64_t k, size_t element_size);

// Rearranges the [n, k] matrix at `data` (elements of 1, 2 or 4 bytes, any alignment; a q8 matrix's
// int8 data and its [n, groups] F32 scales are arranged alike) from rows into
// panels, in place; n must be a multiple of kPanelRows. `scratch` holds panel_scratch_bytes(k, ...).
void arrange_panels_in_place(std::byte* data, int64_t n, int64_t k, size_t element_size, std::byte* scratch);

}  // namespace laya::kernels
