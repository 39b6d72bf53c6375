#include "kernels/layer_norm.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernel_test_util.h"

namespace laya::kernels {

TEST_CASE("LayerNorm normalises each row with the biased variance, then scales and shifts") {
  std::mt19937 rng(11);
  for (int64_t d : {1, 2, 7, 64, 129}) {
    const int64_t rows = 3;
    auto x = testing::random_floats(rng, rows * d, 3.0f);
    for (int64_t j = 0; j < d; ++j) x[j] += 100.0f;  // a row far from zero mean
    auto w = testing::random_floats(rng, d);
    auto b = testing::random_floats(rng, d);
    std::vector<float> out(x.size());
    for (bool with_bias : {false, true}) {
      const LayerNormArgs args{x.data(), out.data(), d, w.data(), with_bias ? b.data() : nullptr, 1e-5};
      layer_norm_f32_scalar(args, 0, rows);
      for (int64_t r = 0; r < rows; ++r) {
        // Reference in long double, written from the definition.
        long double mean = 0, var = 0;
        for (int64_t j = 0; j < d; ++j) mean += x[r * d + j];
        mean /= d;
        for (int64_t j = 0; j < d; ++j) var += (x[r * d + j] - mean) * (x[r * d + j] - mean);
        var /= d;
        for (int64_t j = 0; j < d; ++j) {
          long double y = (x[r * d + j] - mean) / std::sqrt(var + 1e-5L) * w[j] + (with_bias ? b[j] : 0.0f);
          INFO("d " << d << " row " << r << " col " << j);
          REQUIRE(testing::close(out[r * d + j], static_cast<double>(y), 1e-6));
        }
      }
    }
  }
}

TEST_CASE("LayerNorm of a constant row is the bias, and in place gives the same bits") {
  const int64_t d = 5;
  std::vector<float> x(2 * d, 4.25f);
  std::vector<float> w = {1, 2, 3, 4, 5};
  std::vector<float> b = {0.5f, -1, 0, 2, 3};
  std::vector<float> out(x.size());
  layer_norm_f32_scalar({x.data(), out.data(), d, w.data(), b.data(), 1e-5}, 0, 2);
  for (int64_t j = 0; j < d; ++j) CHECK(out[j] == b[j]);

  std::mt19937 rng(12);
  auto y = testing::random_floats(rng, 4 * 33);
  std::vector<float> w33 = testing::random_floats(rng, 33);
  std::vector<float> separate(y.size());
  layer_norm_f32_scalar({y.data(), separate.data(), 33, w33.data(), nullptr, 1e-5}, 0, 4);
  layer_norm_f32_scalar({y.data(), y.data(), 33, w33.data(), nullptr, 1e-5}, 0, 4);
  for (size_t i = 0; i < y.size(); ++i) REQUIRE(testing::same_bits(y[i], separate[i]));
}

TEST_CASE("LayerNorm touches only the rows of its range") {
  std::vector<float> x = {1, 2, 3, 4, 5, 6};
  std::vector<float> w = {1, 1};
  std::vector<float> out(6, -7.0f);
  layer_norm_f32_scalar({x.data(), out.data(), 2, w.data(), nullptr, 0.0}, 1, 2);
  CHECK(out[0] == -7.0f);
  CHECK(out[1] == -7.0f);
  CHECK(out[2] == doctest::Approx(-1.0));
  CHECK(out[3] == doctest::Approx(1.0));
  CHECK(out[4] == -7.0f);
}

}  // namespace laya::kernels
