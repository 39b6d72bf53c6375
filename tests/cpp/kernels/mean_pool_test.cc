#include "kernels/mean_pool.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernel_test_util.h"

namespace laya::kernels {

TEST_CASE("MeanPool averages every token row of each sequence") {
  std::mt19937 rng(51);
  const int64_t width = 6;
  const int32_t starts[] = {0, 1, 5, 12};
  const int32_t marker_starts[] = {0, 0, 0, 0};
  Packing p{nullptr, starts, marker_starts, nullptr, nullptr, 3};
  auto h = testing::random_floats(rng, 12 * width);
  std::vector<float> out(3 * width);
  mean_pool_f32_scalar(h.data(), out.data(), width, p, 0, 3);
  for (int s = 0; s < 3; ++s) {
    for (int j = 0; j < width; ++j) {
      long double sum = 0;
      for (int t = starts[s]; t < starts[s + 1]; ++t) sum += h[t * width + j];
      const double mean = static_cast<double>(sum / (starts[s + 1] - starts[s]));
      // Summed in f64 and rounded once: within an f32 rounding of the exact mean.
      CHECK(std::fabs(out[s * width + j] - mean) <= std::ldexp(std::fabs(mean), -24) + 1e-45);
    }
  }
  // A sequence of one token pools to that token, exactly.
  for (int j = 0; j < width; ++j) CHECK(out[j] == h[j]);
}

}  // namespace laya::kernels
