// The SIMD GELU and GeGlu against the scalar ones. Runs wherever the SIMD kernels are built
// (LAYA_SIMD128: wasm, and natively on SIMDe).
#include "kernels/geglu.h"

#include <doctest/doctest.h>

#ifdef LAYA_SIMD128

#include <cmath>
#include <random>
#include <vector>

#include "kernel_test_util.h"

namespace laya::kernels {

TEST_CASE("the SIMD GeGlu matches the scalar one for odd widths and row ranges") {
  std::mt19937 rng(401);
  for (int64_t n : {1, 3, 4, 5, 8, 9, 96}) {
    const int64_t rows = 3;
    auto x = testing::random_floats(rng, rows * 2 * n, 3.0f);
    std::vector<float> want(rows * n, -9.0f), got(rows * n, -9.0f);
    geglu_f32_scalar(x.data(), want.data(), n, 1, rows);
    geglu_f32_simd128(x.data(), got.data(), n, 1, rows);
    for (size_t i = 0; i < got.size(); ++i) {
      INFO("n " << n << " element " << i);
      // GELU within 2e-7 · max(1, |gelu|), times the gate.
      const double g = std::fabs(x[(i / n) * 2 * n + n + i % n]);
      REQUIRE(std::fabs(got[i] - want[i]) <= 2.5e-7 * std::fmax(1.0, std::fabs(want[i])) * std::fmax(1.0, g));
    }
    for (int64_t j = 0; j < n; ++j) CHECK(got[j] == -9.0f);
  }
}

TEST_CASE("the SIMD GELU of a buffer handles its tail like the rest, in place too") {
  std::mt19937 rng(402);
  auto x = testing::random_floats(rng, 11, 4.0f);
  std::vector<float> out(11);
  gelu_f32_simd128(x.data(), out.data(), 11);
  for (size_t i = 0; i < x.size(); ++i) {
    REQUIRE(std::fabs(out[i] - gelu_scalar(x[i])) <= 2.5e-7 * std::fmax(1.0, std::fabs(out[i])));
  }
  // The same value gives the same bits wherever it sits: in the body or in the tail.
  std::vector<float> same(7, x[0]);
  gelu_f32_simd128(same.data(), same.data(), 7);
  for (float v : same) CHECK(testing::same_bits(v, out[0]));
}

}  // namespace laya::kernels

#endif  // LAYA_SIMD128
