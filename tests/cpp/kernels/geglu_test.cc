#include "kernels/geglu.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernel_test_util.h"

namespace laya::kernels {

TEST_CASE("GELU is the exact erf form, not the tanh approximation") {
  for (double x = -8.0; x <= 8.0; x += 1.0 / 64) {
    const double exact = 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    REQUIRE(std::fabs(gelu_scalar(static_cast<float>(x)) - exact) <= 2e-7 * std::fmax(1.0, std::fabs(exact)));
  }
  // At x = 1 the tanh form gives 0.8411920; the exact form 0.8413447.
  CHECK(gelu_scalar(1.0f) == doctest::Approx(0.8413447).epsilon(1e-6));
}

TEST_CASE("GeGlu multiplies the GELU of the first half by the second half of each row") {
  std::mt19937 rng(3);
  const int64_t n = 9, rows = 4;
  auto x = testing::random_floats(rng, rows * 2 * n, 2.0f);
  std::vector<float> out(rows * n, -1.0f);
  geglu_f32_scalar(x.data(), out.data(), n, 1, rows);
  for (int64_t j = 0; j < n; ++j) CHECK(out[j] == -1.0f);
  for (int64_t r = 1; r < rows; ++r) {
    for (int64_t j = 0; j < n; ++j) {
      CHECK(out[r * n + j] == gelu_scalar(x[r * 2 * n + j]) * x[r * 2 * n + n + j]);
    }
  }
}

}  // namespace laya::kernels
