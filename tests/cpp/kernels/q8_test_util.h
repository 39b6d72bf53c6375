// Test support for q8 weights (docs/q8-format.md): a random float matrix quantized with the
// project's one rounding (graph/q8.h), stored one byte past an aligned address, in rows or in the
// GEMM's 8-row panels (values and scales alike), with the exact f32 value of every element.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "graph/q8.h"
#include "kernel_test_util.h"
#include "kernels/panels.h"

namespace laya::testing {

struct Q8Matrix {
  std::vector<std::byte> storage;  // [1 pad byte][values: rows·cols][1 pad byte][scales]
  std::vector<float> values;       // float(q) · scale, exactly what the kernels must read
  std::vector<float> source;       // the floats that were quantized
  kernels::MatrixRef ref;
  int64_t rows = 0, cols = 0;
};

inline Q8Matrix random_q8_matrix(std::mt19937& rng, int64_t rows, int64_t cols, bool panels, float scale = 0.2f) {
  Q8Matrix m;
  m.rows = rows;
  m.cols = cols;
  const int64_t groups = q8_groups(cols);
  m.source = random_floats(rng, static_cast<size_t>(rows * cols), scale);
  // One row of zeros exercises the zero scale.
  if (rows > 2) std::fill(m.source.begin() + cols, m.source.begin() + 2 * cols, 0.0f);
  std::vector<int8_t> q(static_cast<size_t>(rows * cols));
  std::vector<float> s(static_cast<size_t>(rows * groups));
  for (int64_t r = 0; r < rows; ++r) {
    REQUIRE(quantize_row_q8(m.source.data() + r * cols, cols, q.data() + r * cols, s.data() + r * groups) == -1);
  }
  m.values.resize(q.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      m.values[r * cols + c] = static_cast<float>(q[r * cols + c]) * s[r * groups + c / kQ8Group];
    }
  }
  const size_t value_bytes = q.size();
  m.storage.resize(1 + value_bytes + 1 + s.size() * sizeof(float));
  std::byte* values = m.storage.data() + 1;
  std::byte* scales = values + value_bytes + 1;
  std::memcpy(values, q.data(), value_bytes);
  std::memcpy(scales, s.data(), s.size() * sizeof(float));
  if (panels) {
    std::vector<std::byte> scratch(kernels::panel_scratch_bytes(std::max(cols, groups), sizeof(float)));
    kernels::arrange_panels_in_place(values, rows, cols, 1, scratch.data());
    kernels::arrange_panels_in_place(scales, rows, groups, sizeof(float), scratch.data());
  }
  m.ref = {values, DType::kI8, rows, cols, panels ? WeightLayout::kPanels8 : WeightLayout::kRows, scales};
  return m;
}

}  // namespace laya::testing
