#include "kernels/gemm.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "kernel_test_util.h"
#include "kernels/kernel_table.h"
#include "q8_test_util.h"

namespace laya::kernels {
namespace {

using testing::random_floats;
using testing::random_matrix;

// The reference: a · wᵀ + b in f64 from the exact weight values, then the epilogue in f64.
std::vector<double> reference(const std::vector<float>& a, int64_t m, const testing::RandomMatrix& w,
                              const std::vector<float>* bias, Epilogue e, const std::vector<float>& old) {
  const int64_t n = w.rows;
  const int64_t k = w.cols;
  std::vector<double> out(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0.0;
      for (int64_t t = 0; t < k; ++t) s += static_cast<double>(a[i * k + t]) * w.values[j * k + t];
      if (bias) s += (*bias)[j];
      switch (e) {
        case Epilogue::kNone: break;
        case Epilogue::kGelu: s = 0.5 * s * (1.0 + std::erf(s / std::sqrt(2.0))); break;
        case Epilogue::kRelu: s = s > 0 ? s : 0; break;
        case Epilogue::kAccumulate: s += old[i * n + j]; break;
      }
      out[i * n + j] = s;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("the scalar GEMM matches an f64 reference for every dtype, epilogue and bias") {
  std::mt19937 rng(7);
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
    for (Epilogue e : {Epilogue::kNone, Epilogue::kGelu, Epilogue::kRelu, Epilogue::kAccumulate}) {
      for (bool with_bias : {false, true}) {
        const int64_t m = 5, n = 7, k = 33;
        auto a = random_floats(rng, m * k);
        auto w = random_matrix(rng, dtype, n, k, 0.2f);
        auto bias = random_floats(rng, n);
        auto old = random_floats(rng, m * n);
        std::vector<float> out = old;
        std::vector<float> scratch(gemm_scratch_floats_scalar(m, k));
        const GemmArgs args{a.data(), m, w.ref, with_bias ? bias.data() : nullptr, e, out.data()};
        kernel_table(Isa::kScalar).gemm.of(dtype).fn(args, 0, n, scratch.data());
        auto want = reference(a, m, w, with_bias ? &bias : nullptr, e, old);
        INFO("dtype " << dtype_name(dtype) << " epilogue " << static_cast<int>(e) << " bias " << with_bias);
        for (size_t i = 0; i < out.size(); ++i) REQUIRE(testing::close(out[i], want[i], 1e-5));
      }
    }
  }
}

TEST_CASE("a GEMM over a column range writes only those columns") {
  std::mt19937 rng(8);
  const int64_t m = 3, n = 10, k = 4;
  auto a = random_floats(rng, m * k);
  auto w = random_matrix(rng, DType::kF16, n, k);
  std::vector<float> out(m * n, 123.0f);
  std::vector<float> scratch(gemm_scratch_floats_scalar(m, k));
  const GemmArgs args{a.data(), m, w.ref, nullptr, Epilogue::kNone, out.data()};
  gemm_scalar(args, 3, 6, scratch.data());
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      if (j >= 3 && j < 6) {
        CHECK(out[i * n + j] != 123.0f);
      } else {
        CHECK(out[i * n + j] == 123.0f);
      }
    }
  }
}

TEST_CASE("a GEMM with zero rows or an empty k leaves only the bias") {
  std::mt19937 rng(9);
  auto w = random_matrix(rng, DType::kF32, 4, 0);
  auto bias = random_floats(rng, 4);
  std::vector<float> a(2 * 0);
  std::vector<float> out(2 * 4, 5.0f);
  std::vector<float> scratch(1);
  const GemmArgs args{a.data(), 2, w.ref, bias.data(), Epilogue::kAccumulate, out.data()};
  gemm_scalar(args, 0, 4, scratch.data());
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 4; ++j) CHECK(out[i * 4 + j] == 5.0f + bias[j]);
  }
  const GemmArgs none{a.data(), 0, w.ref, bias.data(), Epilogue::kNone, out.data()};
  gemm_scalar(none, 0, 4, scratch.data());  // m = 0: nothing to write
  CHECK(out[0] == 5.0f + bias[0]);
}

TEST_CASE("a GEMM kernel is named after its function: one scalar kernel for every dtype, a SIMD128 one per dtype") {
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16, DType::kI8}) {
    CHECK(std::string(kernel_table(Isa::kScalar).gemm.of(dtype).name) == "gemm_scalar");
  }
  const char* simd_f16 = kernel_table(Isa::kSimd128).gemm.of(DType::kF16).name;
  if (simd128_compiled()) {
    CHECK(std::string(simd_f16) == "gemm_f16_4x8_simd128");
  } else {
    CHECK(std::string(simd_f16) == "gemm_scalar");
  }
}

}  // namespace laya::kernels

namespace laya::kernels {

// q8 (docs/q8-format.md): the scalar kernel reads float(q) · scale of the element's group exactly.
TEST_CASE("the scalar q8 GEMM matches an f64 reference from the dequantized weights, k ragged or not") {
  std::mt19937 rng(21);
  for (int64_t k : {33, 64, 150}) {
    for (bool panels : {false, true}) {
      const int64_t m = 5, n = 16;
      auto a = random_floats(rng, m * k);
      auto w = testing::random_q8_matrix(rng, n, k, panels);
      auto bias = random_floats(rng, n);
      std::vector<float> out(m * n);
      std::vector<float> scratch(gemm_scratch_floats_scalar(m, k));
      const GemmArgs args{a.data(), m, w.ref, bias.data(), Epilogue::kNone, out.data()};
      kernel_table(Isa::kScalar).gemm.of(DType::kI8).fn(args, 0, n, scratch.data());
      INFO("k " << k << " panels " << panels);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          double s = bias[j];
          for (int64_t t = 0; t < k; ++t) s += double(a[i * k + t]) * w.values[j * k + t];
          REQUIRE(testing::close(out[i * n + j], s, 1e-5));
        }
      }
    }
  }
}

TEST_CASE("q8 weights are within half a step of the floats they quantize") {
  std::mt19937 rng(22);
  auto w = testing::random_q8_matrix(rng, 8, 150, false);
  for (int64_t r = 0; r < 8; ++r) {
    for (int64_t g = 0; g < q8_groups(150); ++g) {
      const float scale = load_scale(w.ref.scale(r, g));
      float max_abs = 0;
      for (int64_t c = g * kQ8Group; c < std::min<int64_t>(150, (g + 1) * kQ8Group); ++c) {
        max_abs = std::max(max_abs, std::fabs(w.source[r * 150 + c]));
      }
      REQUIRE(scale == max_abs / 127.0f);
      for (int64_t c = g * kQ8Group; c < std::min<int64_t>(150, (g + 1) * kQ8Group); ++c) {
        REQUIRE(std::fabs(w.values[r * 150 + c] - w.source[r * 150 + c]) <= 0.5001f * scale);
      }
    }
  }
}

#ifdef LAYA_SIMD128
TEST_CASE("the SIMD q8 GEMM equals the scalar one bit for bit, in panels and in rows") {
  std::mt19937 rng(23);
  for (int64_t k : {4, 64, 68, 300, 520}) {
    for (int64_t m : {1, 3, 4, 9}) {
      for (bool panels : {true, false}) {
        for (Epilogue e : {Epilogue::kNone, Epilogue::kRelu, Epilogue::kAccumulate}) {
          const int64_t n = panels ? 24 : 13;
          auto a = random_floats(rng, m * k);
          auto w = testing::random_q8_matrix(rng, n, k, panels);
          auto bias = random_floats(rng, n);
          auto old = random_floats(rng, m * n);
          std::vector<float> want = old, got = old;
          std::vector<float> s1(gemm_scratch_floats_scalar(m, k));
          std::vector<float> s2(gemm_scratch_floats_simd128(m, k));
          const GemmArgs ga{a.data(), m, w.ref, bias.data(), e, want.data()};
          const GemmArgs gb{a.data(), m, w.ref, bias.data(), e, got.data()};
          kernel_table(Isa::kScalar).gemm.of(DType::kI8).fn(ga, 0, n, s1.data());
          auto simd = kernel_table(Isa::kSimd128).gemm.of(DType::kI8);
          CHECK(std::string(simd.name) == "gemm_q8_4x8_simd128");
          // In two column ranges, as threads split it (panels: whole panels).
          simd.fn(gb, 0, 8, s2.data());
          simd.fn(gb, 8, n, s2.data());
          INFO("k " << k << " m " << m << " panels " << panels << " epilogue " << static_cast<int>(e));
          for (size_t i = 0; i < want.size(); ++i) REQUIRE(testing::same_bits(got[i], want[i]));
        }
      }
    }
  }
}
#endif

}  // namespace laya::kernels
