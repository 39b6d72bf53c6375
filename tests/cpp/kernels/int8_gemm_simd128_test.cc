// The SIMD integer GEMM against the scalar one, bit for bit, over awkward sizes and both weight
// layouts. Runs wherever the SIMD kernels are built (LAYA_SIMD128: wasm, and natively on SIMDe).
#include "kernels/int8_gemm.h"

#include <doctest/doctest.h>

#ifdef LAYA_SIMD128

#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "q8_test_util.h"

namespace laya::kernels {
namespace {

struct Quantized {
  std::vector<int16_t> q;
  std::vector<float> scales;
};

Quantized quantize(const std::vector<float>& a, int64_t m, int64_t k) {
  Quantized x{std::vector<int16_t>(quantized_activations_size(m, k)),
              std::vector<float>(static_cast<size_t>(m))};
  quantize_activations_i16_scalar(a.data(), m, k, x.q.data(), x.scales.data());
  return x;
}

// The SIMD kernel over columns [0, split) then [split, n) (one call when split is n).
std::vector<float> run_simd(const Quantized& a, int64_t m, const MatrixRef& w, const float* bias, Epilogue e,
                            const std::vector<float>& old, int64_t split) {
  std::vector<float> out = old;
  std::vector<float> scratch(int8_gemm_scratch_floats_simd128(m));
  const Int8GemmArgs args{a.q.data(), a.scales.data(), m, w, bias, e, out.data()};
  int8_gemm_4x8_simd128(args, 0, split, scratch.data());
  int8_gemm_4x8_simd128(args, split, w.rows, scratch.data());
  return out;
}

std::vector<float> run_scalar(const Quantized& a, int64_t m, const MatrixRef& w, const float* bias, Epilogue e,
                              const std::vector<float>& old) {
  std::vector<float> out = old;
  int8_gemm_scalar({a.q.data(), a.scales.data(), m, w, bias, e, out.data()}, 0, w.rows, nullptr);
  return out;
}

bool same_bits(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0);
}

}  // namespace

TEST_CASE("the SIMD integer GEMM gives the scalar kernel's bits for awkward sizes, both layouts and every epilogue") {
  std::mt19937 rng(3502);
  int cases = 0;
  for (int64_t m : {0, 1, 3, 4, 5, 8, 13}) {
    for (int64_t n : {1, 7, 8, 9, 16, 17}) {
      for (int64_t k : {1, 2, 3, 63, 64, 65, 255, 256, 257, 600}) {
        auto a = testing::random_floats(rng, static_cast<size_t>(m * k));
        for (int64_t t = 0; t < k; t += 29) {
          for (int64_t i = 0; i < m; ++i) a[i * k + t] *= 40.0f;  // outlier channels
        }
        const Quantized qa = quantize(a, m, k);
        // In 8-row panels (the loader's layout, whole panels only) every other time it can be.
        const bool panels = n % 8 == 0 && cases % 2 == 0;
        const auto w = testing::random_q8_matrix(rng, n, k, panels);
        const auto bias = testing::random_floats(rng, static_cast<size_t>(n));
        const auto old = testing::random_floats(rng, static_cast<size_t>(m * n));
        for (Epilogue e : {Epilogue::kNone, Epilogue::kGelu, Epilogue::kRelu, Epilogue::kAccumulate}) {
          for (bool with_bias : {false, true}) {
            const float* b = with_bias ? bias.data() : nullptr;
            const int64_t split = (cases % 3 == 0) ? n : (n / 2);  // a split inside a panel, at times
            INFO("m " << m << " n " << n << " k " << k << " panels " << panels << " epilogue "
                      << static_cast<int>(e) << " bias " << with_bias << " split " << split);
            REQUIRE(same_bits(run_simd(qa, m, w.ref, b, e, old, split), run_scalar(qa, m, w.ref, b, e, old)));
          }
        }
        ++cases;
      }
    }
  }
  CHECK(cases == 7 * 6 * 10);
}

TEST_CASE("the SIMD integer GEMM keeps full groups of the largest products exact, as the scalar kernel does") {
  // Every activation ±32767 and every weight ±127: each group's int32 sum reaches 64 · 32767 · 127.
  const int64_t m = 5, n = 16, k = 600;
  std::vector<float> a(static_cast<size_t>(m * k));
  for (int64_t i = 0; i < m * k; ++i) a[i] = (i % k % 7 == 3) ? -1.0f : 1.0f;
  const Quantized qa = quantize(a, m, k);
  std::mt19937 rng(3503);
  for (bool panels : {false, true}) {
    auto w = testing::random_q8_matrix(rng, n, k, panels);
    // Overwrite the values with ±127 (signs following the activations on row 0: a full group of
    // 64 · 32767 · 127 there).
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t t = 0; t < k; ++t) {
        const int8_t v = (r == 0) == (t % 7 == 3) ? -127 : 127;
        std::memcpy(const_cast<std::byte*>(w.ref.element(r, t)), &v, 1);
      }
    }
    const std::vector<float> old(static_cast<size_t>(m * n), 0.0f);
    REQUIRE(same_bits(run_simd(qa, m, w.ref, nullptr, Epilogue::kNone, old, n),
                      run_scalar(qa, m, w.ref, nullptr, Epilogue::kNone, old)));
  }
}

TEST_CASE("the SIMD activation quantizer gives the scalar quantizer's bits, zero and non-finite rows included") {
  std::mt19937 rng(3504);
  for (int64_t m : {1, 3, 4, 6, 9}) {
    for (int64_t k : {1, 2, 3, 4, 5, 7, 64, 65, 130}) {
      auto a = testing::random_floats(rng, static_cast<size_t>(m * k), 3.0f);
      for (int64_t t = 0; t < k; t += 5) a[t] *= 60.0f;  // an outlier or two on row 0
      if (m > 2) std::fill(a.begin() + k, a.begin() + 2 * k, 0.0f);
      if (m > 3) a[3 * k + k / 2] = std::numeric_limits<float>::infinity();
      if (m > 5) a[5 * k + k - 1] = std::nanf("");
      std::vector<int16_t> want(quantized_activations_size(m, k), 7), got(want.size(), 9);
      std::vector<float> want_scales(static_cast<size_t>(m)), got_scales(static_cast<size_t>(m));
      quantize_activations_i16_scalar(a.data(), m, k, want.data(), want_scales.data());
      quantize_activations_i16_simd128(a.data(), m, k, got.data(), got_scales.data());
      INFO("m " << m << " k " << k);
      CHECK(got == want);
      CHECK(same_bits(got_scales, want_scales));
    }
  }
}

}  // namespace laya::kernels

#endif  // LAYA_SIMD128
