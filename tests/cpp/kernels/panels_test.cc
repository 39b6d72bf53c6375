// The panel layout: every element lands where MatrixRef::element says, for 2- and 4-byte elements.
#include "kernels/panels.h"

#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernel_test_util.h"

namespace laya::kernels {

TEST_CASE("arranging in place puts element (r, c) at ((r / 8)·k + c)·8 + r % 8 and reads back through MatrixRef") {
  std::mt19937 rng(7);
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
    for (int64_t n : {8, 16, 40}) {
      for (int64_t k : {1, 5, 256, 300}) {
        const auto w = testing::random_matrix(rng, dtype, n, k);
        const size_t size = dtype_size(dtype);
        std::vector<std::byte> panels(static_cast<size_t>(n * k) * size + 1);
        std::memcpy(panels.data() + 1, w.data(), static_cast<size_t>(n * k) * size);
        std::vector<std::byte> scratch(panel_scratch_bytes(k, size));
        arrange_panels_in_place(panels.data() + 1, n, k, size, scratch.data());
        const MatrixRef arranged{panels.data() + 1, dtype, n, k, WeightLayout::kPanels8};
        std::vector<float> row(static_cast<size_t>(k));
        for (int64_t r = 0; r < n; ++r) {
          arranged.convert_row(r, row.data());
          for (int64_t c = 0; c < k; ++c) {
            INFO(dtype_name(dtype) << " n " << n << " k " << k << " at (" << r << ", " << c << ")");
            const size_t want = static_cast<size_t>(((r / 8) * k + c) * 8 + r % 8) * size;
            REQUIRE(std::memcmp(panels.data() + 1 + want, w.ref.element(r, c), size) == 0);
            REQUIRE(testing::same_bits(arranged.at(r, c), w.values[static_cast<size_t>(r * k + c)]));
            REQUIRE(testing::same_bits(row[static_cast<size_t>(c)], w.values[static_cast<size_t>(r * k + c)]));
          }
        }
      }
    }
  }
}

}  // namespace laya::kernels
