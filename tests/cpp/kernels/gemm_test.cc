#include "kernels/gemm.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernel_test_util.h"

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
        std::vector<float> scratch(gemm_scratch_floats(Isa::kScalar, m, k));
        const GemmArgs args{a.data(), m, w.ref, with_bias ? bias.data() : nullptr, e, out.data()};
        gemm_kernel(dtype, Isa::kScalar).fn(args, 0, n, scratch.data());
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
  std::vector<float> scratch(gemm_scratch_floats(Isa::kScalar, m, k));
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

TEST_CASE("kernel names follow <op>_<dtype>[_<tile>]_<isa>") {
  CHECK(std::string(gemm_kernel(DType::kF16, Isa::kScalar).name) == "gemm_f16_scalar");
  CHECK(std::string(gemm_kernel(DType::kBF16, Isa::kScalar).name) == "gemm_bf16_scalar");
  if (simd128_compiled()) {
    CHECK(std::string(gemm_kernel(DType::kF16, Isa::kSimd128).name) == "gemm_f16_4x8_simd128");
  } else {
    CHECK(std::string(gemm_kernel(DType::kF16, Isa::kSimd128).name) == "gemm_f16_scalar");
  }
}

}  // namespace laya::kernels
