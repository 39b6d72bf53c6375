#include "kernels/gather_markers.h"

#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "kernel_test_util.h"

namespace laya::kernels {

TEST_CASE("GatherMarkers takes the token row of each marker, counted within its sequence") {
  std::mt19937 rng(42);
  const int64_t width = 5;
  const int32_t starts[] = {0, 4, 6, 9};
  const int32_t marker_starts[] = {0, 2, 2, 4};
  const int32_t markers[] = {3, 0, 2, 0};
  Packing p{nullptr, starts, marker_starts, markers, nullptr, 3};
  auto h = testing::random_floats(rng, 9 * width);
  std::vector<float> out(4 * width);
  gather_markers_f32_scalar(h.data(), out.data(), width, p, 0, 3);
  const int rows[] = {3, 0, 8, 6};
  for (int m = 0; m < 4; ++m) {
    for (int j = 0; j < width; ++j) CHECK(out[m * width + j] == h[rows[m] * width + j]);
  }
}

}  // namespace laya::kernels
