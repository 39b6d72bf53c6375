// The SIMD LayerNorm against the scalar one. Runs wherever the SIMD kernels are built
// (LAYA_SIMD128: wasm, and natively on SIMDe).
#include "kernels/layer_norm.h"

#include <doctest/doctest.h>

#ifdef LAYA_SIMD128

#include <cmath>
#include <random>
#include <vector>

#include "kernel_test_util.h"

namespace laya::kernels {

TEST_CASE("the SIMD LayerNorm is within one f32 rounding of the scalar one, in place too") {
  std::mt19937 rng(301);
  for (int64_t d : {1, 2, 3, 4, 5, 7, 8, 63, 64, 65, 1024}) {
    const int64_t rows = 5;
    auto x = testing::random_floats(rng, rows * d, 2.0f);
    for (int64_t j = 0; j < d; ++j) x[d + j] += 50.0f;  // a row with a large mean
    auto w = testing::random_floats(rng, d);
    auto b = testing::random_floats(rng, d);
    for (bool bias : {false, true}) {
      const float* bp = bias ? b.data() : nullptr;
      std::vector<float> want(x.size()), got(x.size());
      layer_norm_f32_scalar({x.data(), want.data(), d, w.data(), bp, 1e-5}, 0, rows);
      layer_norm_f32_simd128({x.data(), got.data(), d, w.data(), bp, 1e-5}, 0, rows);
      std::vector<float> in_place = x;
      layer_norm_f32_simd128({in_place.data(), in_place.data(), d, w.data(), bp, 1e-5}, 0, rows);
      for (size_t i = 0; i < x.size(); ++i) {
        INFO("width " << d << " bias " << bias << " element " << i);
        const float ulp = std::nextafter(std::fabs(want[i]), INFINITY) - std::fabs(want[i]);
        REQUIRE(std::fabs(got[i] - want[i]) <= ulp);
        REQUIRE(testing::same_bits(in_place[i], got[i]));
      }
    }
  }
}

}  // namespace laya::kernels

#endif  // LAYA_SIMD128
