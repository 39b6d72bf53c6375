// Rows into 8-row panels, in place (see panels.h).
#include "kernels/panels.h"

#include <cassert>
#include <cstring>

#include "graph/weights.h"

namespace laya::kernels {

namespace {

// One panel: its 8 rows are copied out, then written back k-major, 8 elements per k.
template <typename T>
void arrange_panel(std::byte* panel, int64_t k, T* rows) {
  const size_t bytes = static_cast<size_t>(kPanelRows * k) * sizeof(T);
  std::memcpy(rows, panel, bytes);
  for (int64_t t = 0; t < k; ++t) {
    T column[kPanelRows];
    for (int64_t r = 0; r < kPanelRows; ++r) column[r] = rows[r * k + t];
    std::memcpy(panel + static_cast<size_t>(t * kPanelRows) * sizeof(T), column, sizeof column);
  }
}

}  // namespace

size_t panel_scratch_bytes(int64_t k, size_t element_size) {
  return static_cast<size_t>(kPanelRows * k) * element_size;
}

void arrange_panels_in_place(std::byte* data, int64_t n, int64_t k, size_t element_size, std::byte* scratch) {
  assert(n % kPanelRows == 0 && "panels hold whole groups of 8 rows");
  const size_t panel_bytes = panel_scratch_bytes(k, element_size);
  for (int64_t p = 0; p < n / kPanelRows; ++p) {
    std::byte* panel = data + static_cast<size_t>(p) * panel_bytes;
    if (element_size == 1) {
      arrange_panel(panel, k, reinterpret_cast<uint8_t*>(scratch));
    } else if (element_size == 2) {
      arrange_panel(panel, k, reinterpret_cast<uint16_t*>(scratch));
    } else {
      arrange_panel(panel, k, reinterpret_cast<uint32_t*>(scratch));
    }
  }
}

}  // namespace laya::kernels
