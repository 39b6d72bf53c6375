// The SIMD RoPE against the scalar one. Runs wherever the SIMD kernels are built (LAYA_SIMD128:
// wasm, and natively on SIMDe).
#include "kernels/rope.h"

#include <doctest/doctest.h>

#ifdef LAYA_SIMD128

#include <random>
#include <vector>

#include "kernel_test_util.h"

namespace laya::kernels {

TEST_CASE("the SIMD RoPE gives the scalar RoPE's bits") {
  std::mt19937 rng(501);
  for (int64_t heads : {1, 3}) {
    const std::vector<int32_t> starts = {0, 1, 9, 10, 75};
    auto x = testing::random_floats(rng, starts.back() * 3 * heads * kHeadDim);
    const RopeTable t = make_rope_table(160000.0, 65);
    std::vector<float> want = x, got = x;
    rope_f32_scalar({want.data(), heads, starts.data(), &t}, 0, 4);
    rope_f32_simd128({got.data(), heads, starts.data(), &t}, 0, 4);
    for (size_t i = 0; i < x.size(); ++i) REQUIRE(testing::same_bits(got[i], want[i]));
  }
}

}  // namespace laya::kernels

#endif  // LAYA_SIMD128
