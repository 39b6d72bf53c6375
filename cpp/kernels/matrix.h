// A weight matrix as kernels see it: `rows` x `cols` elements in the dtype the checkpoint stored, at
// any alignment (the data is the loader's buffer), in rows or in the GEMM's 8-row panels
// (graph/weights.h WeightLayout). Kernels convert to f32 as they read (graph/half.h holds the exact
// scalar conversions).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "graph/half.h"
#include "graph/weights.h"

namespace laya::kernels {

struct MatrixRef {
  const std::byte* data = nullptr;
  DType dtype = DType::kF32;
  int64_t rows = 0;
  int64_t cols = 0;
  WeightLayout layout = WeightLayout::kRows;

  // Where element (r, c) is stored.
  const std::byte* element(int64_t r, int64_t c) const {
    const size_t size = dtype_size(dtype);
    if (layout == WeightLayout::kPanels8) {
      const int64_t panel = r / kPanelRows;
      return data + (static_cast<size_t>(panel * cols + c) * kPanelRows + static_cast<size_t>(r % kPanelRows)) * size;
    }
    return data + (static_cast<size_t>(r) * static_cast<size_t>(cols) + static_cast<size_t>(c)) * size;
  }
  // Row r's first element; rows layout only.
  const std::byte* row(int64_t r) const {
    return data + static_cast<size_t>(r) * static_cast<size_t>(cols) * dtype_size(dtype);
  }
  // Element (r, c) as f32, exactly.
  float at(int64_t r, int64_t c) const {
    const std::byte* p = element(r, c);
    if (dtype == DType::kF32) {
      float v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    uint16_t bits;
    std::memcpy(&bits, p, sizeof bits);
    return dtype == DType::kF16 ? f16_to_f32(bits) : bf16_to_f32(bits);
  }
  // Row r as f32 into dst[0, cols).
  void convert_row(int64_t r, float* dst) const {
    if (layout == WeightLayout::kRows) {
      convert_to_f32(dtype, row(r), static_cast<size_t>(cols), dst);
      return;
    }
    for (int64_t c = 0; c < cols; ++c) dst[c] = at(r, c);
  }
};

}  // namespace laya::kernels
