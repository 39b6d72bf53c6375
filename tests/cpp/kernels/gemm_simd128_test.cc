// The SIMD GEMM against the scalar GEMM over awkward sizes. Runs wherever the SIMD kernels are
// built (LAYA_SIMD128: wasm, and natively on SIMDe).
#include "kernels/gemm.h"

#include <doctest/doctest.h>

#ifdef LAYA_SIMD128

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernel_test_util.h"
#include "kernels/kernel_table.h"
#include "kernels/panels.h"

namespace laya::kernels {
namespace {

std::vector<float> run(Isa isa, DType dtype, const std::vector<float>& a, int64_t m, const testing::RandomMatrix& w,
                       const float* bias, Epilogue e, const std::vector<float>& old, int64_t split = -1) {
  std::vector<float> out = old;
  const KernelTable& table = kernel_table(isa);
  std::vector<float> scratch(table.gemm_scratch_floats(m, w.cols) + 1);
  const GemmArgs args{a.data(), m, w.ref, bias, e, out.data()};
  const auto kernel = table.gemm.of(dtype);
  if (split < 0) {
    kernel.fn(args, 0, w.rows, scratch.data());
  } else {
    kernel.fn(args, 0, split, scratch.data());
    kernel.fn(args, split, w.rows, scratch.data());
  }
  return out;
}

}  // namespace

TEST_CASE("the SIMD GEMM gives the scalar GEMM's bits (GELU within 2e-7) for every dtype and awkward sizes") {
  std::mt19937 rng(101);
  int cases = 0;
  for (int64_t m : {0, 1, 3, 4, 5, 8, 13}) {
    for (int64_t n : {1, 7, 8, 9, 17}) {
      for (int64_t k : {1, 3, 4, 5, 255, 256, 257, 600}) {
        const DType dtype = (cases % 3 == 0) ? DType::kF32 : (cases % 3 == 1) ? DType::kF16 : DType::kBF16;
        auto a = testing::random_floats(rng, m * k);
        auto w = testing::random_matrix(rng, dtype, n, k, 1.0f / std::sqrt(static_cast<float>(k)));
        auto bias = testing::random_floats(rng, n);
        auto old = testing::random_floats(rng, m * n);
        for (Epilogue e : {Epilogue::kNone, Epilogue::kGelu, Epilogue::kRelu, Epilogue::kAccumulate}) {
          for (bool with_bias : {false, true}) {
            const float* b = with_bias ? bias.data() : nullptr;
            const auto want = run(Isa::kScalar, dtype, a, m, w, b, e, old);
            const auto got = run(Isa::kSimd128, dtype, a, m, w, b, e, old);
            INFO("m " << m << " n " << n << " k " << k << " dtype " << dtype_name(dtype) << " epilogue "
                      << static_cast<int>(e) << " bias " << with_bias);
            for (size_t i = 0; i < got.size(); ++i) {
              if (e == Epilogue::kGelu) {
                REQUIRE(std::fabs(got[i] - want[i]) <= 2e-7 * std::fmax(1.0, std::fabs(want[i])));
              } else {
                REQUIRE(testing::same_bits(got[i], want[i]));
              }
            }
          }
        }
        ++cases;
      }
    }
  }
  CHECK(cases == 7 * 5 * 8);
}

TEST_CASE("all three dtypes take the vector packing path and the edge path") {
  std::mt19937 rng(102);
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
    const int64_t m = 6, n = 19, k = 263;  // two full panels and an edge panel; a k tail of 3 per block
    auto a = testing::random_floats(rng, m * k);
    auto w = testing::random_matrix(rng, dtype, n, k, 0.1f);
    const std::vector<float> old(m * n, 0.0f);
    const auto want = run(Isa::kScalar, dtype, a, m, w, nullptr, Epilogue::kNone, old);
    const auto got = run(Isa::kSimd128, dtype, a, m, w, nullptr, Epilogue::kNone, old);
    for (size_t i = 0; i < got.size(); ++i) REQUIRE(testing::same_bits(got[i], want[i]));
  }
}

TEST_CASE("a GEMM split into column ranges gives the bits of the whole") {
  std::mt19937 rng(103);
  const int64_t m = 9, n = 40, k = 300;
  auto a = testing::random_floats(rng, m * k);
  auto w = testing::random_matrix(rng, DType::kF16, n, k, 0.1f);
  auto bias = testing::random_floats(rng, n);
  auto old = testing::random_floats(rng, m * n);
  const auto whole = run(Isa::kSimd128, DType::kF16, a, m, w, bias.data(), Epilogue::kAccumulate, old);
  for (int64_t split : {8, 16, 24}) {
    const auto parts = run(Isa::kSimd128, DType::kF16, a, m, w, bias.data(), Epilogue::kAccumulate, old, split);
    for (size_t i = 0; i < whole.size(); ++i) REQUIRE(testing::same_bits(parts[i], whole[i]));
  }
}

TEST_CASE("F16 weights with subnormals, signed zeros and extremes convert exactly in the GEMM") {
  // Weight rows hold special encodings; a is one-hot, so each output is exactly one weight.
  // (Infinities would meet 0 · inf = NaN here; simd128_math_test covers their conversion.)
  const uint16_t specials[] = {0x0000, 0x8000, 0x0001, 0x03FF, 0x8001, 0x0400, 0x7BFF, 0xFBFF, 0x3C00, 0xBC01};
  const int64_t k = 10, n = 8;
  std::vector<std::byte> storage(n * k * 2 + 1);
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t t = 0; t < k; ++t) std::memcpy(storage.data() + 1 + (j * k + t) * 2, &specials[(j + t) % 10], 2);
  }
  const MatrixRef w{storage.data() + 1, DType::kF16, n, k};
  for (int64_t t = 0; t < k; ++t) {
    std::vector<float> a(k, 0.0f);
    a[t] = 1.0f;
    std::vector<float> out(n, 0.0f);
    std::vector<float> scratch(gemm_scratch_floats_simd128(1, k));
    gemm_f16_4x8_simd128({a.data(), 1, w, nullptr, Epilogue::kNone, out.data()}, 0, n, scratch.data());
    for (int64_t j = 0; j < n; ++j) {
      // 0 + 1·x: exact, except that −0 becomes +0 as it does in the scalar sum.
      const float x = f16_to_f32(specials[(j + t) % 10]);
      REQUIRE(testing::same_bits(out[j], 0.0f + x * 1.0f));
    }
  }
}

TEST_CASE("F16 infinities reach the GEMM as infinities") {
  // With a all ones, a row holding +inf sums to +inf, one holding −inf to −inf, in both kernels.
  const int64_t k = 12, n = 9;
  std::vector<std::byte> storage(n * k * 2 + 1);
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t t = 0; t < k; ++t) {
      uint16_t bits = 0x3C00;  // 1.0
      if (t == j) bits = j % 2 ? 0xFC00 : 0x7C00;
      std::memcpy(storage.data() + 1 + (j * k + t) * 2, &bits, 2);
    }
  }
  const MatrixRef w{storage.data() + 1, DType::kF16, n, k};
  std::vector<float> a(2 * k, 1.0f);
  std::vector<float> out(2 * n, 0.0f), want(2 * n, 0.0f);
  std::vector<float> scratch(gemm_scratch_floats_simd128(2, k) + k);
  gemm_f16_4x8_simd128({a.data(), 2, w, nullptr, Epilogue::kNone, out.data()}, 0, n, scratch.data());
  gemm_scalar({a.data(), 2, w, nullptr, Epilogue::kNone, want.data()}, 0, n, scratch.data());
  for (int64_t i = 0; i < 2 * n; ++i) {
    const int64_t j = i % n;
    if (j < k) CHECK(out[i] == (j % 2 ? -INFINITY : INFINITY));
    CHECK(testing::same_bits(out[i], want[i]));
  }
}

TEST_CASE("weights arranged in panels give the bits of the same weights in rows, every dtype and epilogue") {
  std::mt19937 rng(104);
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
    for (size_t offset : {0, 1, 4}) {  // F32 panels are read in place when 4-byte aligned, copied when not
      const int64_t m = 7, n = 24, k = 300;  // blocks of 256 and a tail of 44
      auto a = testing::random_floats(rng, m * k);
      auto w = testing::random_matrix(rng, dtype, n, k, 0.1f);
      auto bias = testing::random_floats(rng, n);
      const auto old = testing::random_floats(rng, m * n);
      std::vector<std::byte> storage(static_cast<size_t>(n * k) * dtype_size(dtype) + 8);
      std::memcpy(storage.data() + offset, w.data(), static_cast<size_t>(n * k) * dtype_size(dtype));
      std::vector<std::byte> scratch(panel_scratch_bytes(k, dtype_size(dtype)));
      arrange_panels_in_place(storage.data() + offset, n, k, dtype_size(dtype), scratch.data());
      testing::RandomMatrix arranged = w;
      arranged.ref = {storage.data() + offset, dtype, n, k, WeightLayout::kPanels8};
      for (Epilogue e : {Epilogue::kNone, Epilogue::kGelu, Epilogue::kAccumulate}) {
        INFO(dtype_name(dtype) << " offset " << offset << " epilogue " << static_cast<int>(e));
        const auto want = run(Isa::kSimd128, dtype, a, m, w, bias.data(), e, old);
        const auto got = run(Isa::kSimd128, dtype, a, m, arranged, bias.data(), e, old);
        const auto scalar = run(Isa::kScalar, dtype, a, m, arranged, bias.data(), e, old);
        const auto split = run(Isa::kSimd128, dtype, a, m, arranged, bias.data(), e, old, 16);
        for (size_t i = 0; i < got.size(); ++i) {
          REQUIRE(testing::same_bits(got[i], want[i]));
          REQUIRE(testing::same_bits(split[i], want[i]));
          if (e != Epilogue::kGelu) REQUIRE(testing::same_bits(scalar[i], want[i]));
        }
      }
    }
  }
}

}  // namespace laya::kernels

#endif  // LAYA_SIMD128
