#include "kernels/add_type.h"

#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "kernel_test_util.h"
#include "kernels/kernel_table.h"
#include "q8_test_util.h"

namespace laya::kernels {

TEST_CASE("AddType adds the row of each sequence's qtype to every one of its tokens") {
  std::mt19937 rng(32);
  auto table = testing::random_matrix(rng, DType::kF16, 3, 4);
  const int32_t starts[] = {0, 2, 3, 6};
  const int32_t qtypes[] = {2, 0, 1};
  const int32_t marker_starts[] = {0, 0, 0, 0};
  Packing p{nullptr, starts, marker_starts, nullptr, qtypes, 3};
  auto h = testing::random_floats(rng, 6 * 4);
  std::vector<float> out = h;
  add_type_scalar(table.ref, p, out.data(), 0, 3);
  for (int s = 0; s < 3; ++s) {
    for (int t = starts[s]; t < starts[s + 1]; ++t) {
      for (int j = 0; j < 4; ++j) REQUIRE(out[t * 4 + j] == h[t * 4 + j] + table.values[qtypes[s] * 4 + j]);
    }
  }
}

TEST_CASE("AddType reads q8 rows as float(q) times their group's scale, exactly") {
  std::mt19937 rng(33);
  auto table = testing::random_q8_matrix(rng, 11, 150, false);
  const int32_t starts[] = {0, 5};
  const int32_t qtypes[] = {2};
  const int32_t marker_starts[] = {0, 0};
  Packing p{nullptr, starts, marker_starts, nullptr, qtypes, 1};
  std::vector<float> h(5 * 150, 1.0f);
  kernel_table(Isa::kScalar).add_type.of(DType::kI8).fn(table.ref, p, h.data(), 0, 1);
  for (int t = 0; t < 5; ++t) {
    for (int j = 0; j < 150; ++j) REQUIRE(h[t * 150 + j] == 1.0f + table.values[2 * 150 + j]);
  }
}

}  // namespace laya::kernels
