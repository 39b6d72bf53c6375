// A weight matrix as kernels see it: `rows` x `cols` elements in the dtype the checkpoint stored, at
// any alignment (the data is the loader's buffer), in rows or in the GEMM's 8-row panels
// (graph/weights.h WeightLayout). Kernels convert to f32 as they read (graph/half.h holds the exact
// scalar conversions). A q8 matrix (kI8, docs/q8-format.md) reads element (r, c) as
// float(q) · scale(r, c / kQ8Group), its scales in the matrix's layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "graph/half.h"
#include "graph/q8.h"
#include "graph/weights.h"

namespace laya::kernels {

struct MatrixRef {
  const std::byte* data = nullptr;
  DType dtype = DType::kF32;
  int64_t rows = 0;
  int64_t cols = 0;
  WeightLayout layout = WeightLayout::kRows;
  const std::byte* scales = nullptr;  // kI8 only: F32, [rows, q8_groups(cols)] in `layout`

  // Where the scale of group g of row r is stored (kI8).
  const std::byte* scale(int64_t r, int64_t g) const {
    const int64_t groups = q8_groups(cols);
    if (layout == WeightLayout::kPanels8) {
      const int64_t panel = r / kPanelRows;
      return scales + (static_cast<size_t>(panel * groups + g) * kPanelRows + static_cast<size_t>(r % kPanelRows)) * 4;
    }
    return scales + static_cast<size_t>(r * groups + g) * 4;
  }
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
    if (dtype == DType::kI8) {
      return static_cast<float>(static_cast<int8_t>(*p)) * load_scale(scale(r, c / kQ8Group));
    }
    uint16_t bits;
    std::memcpy(&bits, p, sizeof bits);
    return dtype == DType::kF16 ? f16_to_f32(bits) : bf16_to_f32(bits);
  }
  // Row r as f32 into dst[0, cols).
  void convert_row(int64_t r, float* dst) const {
    if (layout == WeightLayout::kRows && dtype == DType::kI8) {
      const std::byte* q = row(r);
      for (int64_t c0 = 0; c0 < cols; c0 += kQ8Group) {
        const float s = load_scale(scale(r, c0 / kQ8Group));
        const int64_t c1 = c0 + kQ8Group < cols ? c0 + kQ8Group : cols;
        for (int64_t c = c0; c < c1; ++c) dst[c] = static_cast<float>(static_cast<int8_t>(q[c])) * s;
      }
      return;
    }
    if (layout == WeightLayout::kRows) {
      convert_to_f32(dtype, row(r), static_cast<size_t>(cols), dst);
      return;
    }
    for (int64_t c = 0; c < cols; ++c) dst[c] = at(r, c);
  }
};

}  // namespace laya::kernels
