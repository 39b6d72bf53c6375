// The SIMD attention against the scalar attention over awkward lengths and windows. Runs wherever
// the SIMD kernels are built (LAYA_SIMD128: wasm, and natively on SIMDe).
#include "kernels/attention.h"

#include <doctest/doctest.h>

#ifdef LAYA_SIMD128

#include <cmath>
#include <random>
#include <vector>

#include "kernel_test_util.h"
#include "kernels/kernel_table.h"
#include "kernels/rope.h"

namespace laya::kernels {
namespace {

std::vector<float> run(Isa isa, const std::vector<float>& qkv, int64_t heads, const std::vector<int32_t>& starts,
                       int64_t window, int64_t max_len) {
  std::vector<float> out(starts.back() * heads * kHeadDim, -1.0f);
  const KernelTable& table = kernel_table(isa);
  std::vector<float> scratch(table.attention_scratch_floats(max_len));
  table.attention.fn({qkv.data(), out.data(), heads, starts.data(), window}, 0,
                     (static_cast<int64_t>(starts.size()) - 1) * heads, scratch.data());
  return out;
}

}  // namespace

TEST_CASE("the SIMD attention matches the scalar one for lengths around the tiles and every window") {
  std::mt19937 rng(201);
  for (int64_t heads : {1, 2}) {
    // Sequences of 1, tile − 1, tile, tile + 1 (queries 4, keys 8) and longer, packed together.
    const std::vector<int32_t> lens = {1, 3, 4, 5, 7, 8, 9, 16, 17, 40, 2};
    std::vector<int32_t> starts = {0};
    for (int32_t l : lens) starts.push_back(starts.back() + l);
    // Large activations make the softmax peaked, so the online rescaling matters.
    auto qkv = testing::random_floats(rng, starts.back() * 3 * heads * kHeadDim, 1.5f);
    for (int64_t window : {-1, 0, 1, 3, 4, 7, 8, 9, 100}) {
      const auto want = run(Isa::kScalar, qkv, heads, starts, window, 40);
      const auto got = run(Isa::kSimd128, qkv, heads, starts, window, 40);
      INFO("heads " << heads << " window " << window);
      for (size_t i = 0; i < got.size(); ++i) {
        INFO("element " << i << ": " << got[i] << " vs " << want[i]);
        REQUIRE(std::fabs(got[i] - want[i]) <= 1e-6 * std::fmax(1.0, std::fabs(want[i])));
      }
    }
  }
}

TEST_CASE("the SIMD attention gives each sequence the same bits alone and packed") {
  std::mt19937 rng(202);
  const int64_t heads = 2, d = heads * kHeadDim;
  const std::vector<int32_t> starts = {0, 13, 14, 51, 60};
  auto qkv = testing::random_floats(rng, starts.back() * 3 * d);
  for (int64_t window : {-1, 5}) {
    const auto packed = run(Isa::kSimd128, qkv, heads, starts, window, 37);
    for (size_t s = 0; s + 1 < starts.size(); ++s) {
      const int64_t first = starts[s], len = starts[s + 1] - first;
      std::vector<float> one(qkv.begin() + first * 3 * d, qkv.begin() + (first + len) * 3 * d);
      const auto alone = run(Isa::kSimd128, one, heads, {0, static_cast<int32_t>(len)}, window, len);
      for (int64_t i = 0; i < len * d; ++i) REQUIRE(testing::same_bits(alone[i], packed[first * d + i]));
    }
  }
}

}  // namespace laya::kernels

#endif  // LAYA_SIMD128
