#include "kernels/embed.h"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "kernels/kernel_table.h"
#include "q8_test_util.h"

namespace laya::kernels {

TEST_CASE("Embed copies the table row of each id, exactly, in every dtype") {
  std::mt19937 rng(31);
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
    auto table = testing::random_matrix(rng, dtype, 11, 5);
    const std::vector<int32_t> ids = {3, 0, 10, 3, 7};
    std::vector<float> out(ids.size() * 5, -1.0f);
    auto k = kernel_table(Isa::kScalar).embed.of(dtype);
    k.fn(table.ref, ids.data(), out.data(), 1, 5);
    for (int64_t j = 0; j < 5; ++j) CHECK(out[j] == -1.0f);
    for (size_t t = 1; t < ids.size(); ++t) {
      for (int64_t j = 0; j < 5; ++j) REQUIRE(testing::same_bits(out[t * 5 + j], table.values[ids[t] * 5 + j]));
    }
  }
}

TEST_CASE("Embed reads q8 rows as float(q) times their group's scale, exactly") {
  std::mt19937 rng(33);
  auto table = testing::random_q8_matrix(rng, 11, 150, false);
  const std::vector<int32_t> ids = {3, 0, 10, 2, 7};
  std::vector<float> out(ids.size() * 150);
  kernel_table(Isa::kScalar).embed.of(DType::kI8).fn(table.ref, ids.data(), out.data(), 0, 5);
  for (size_t t = 0; t < ids.size(); ++t) {
    for (int64_t j = 0; j < 150; ++j) REQUIRE(testing::same_bits(out[t * 150 + j], table.values[ids[t] * 150 + j]));
  }
}

TEST_CASE("the SIMD128 table keeps the scalar Embed for every dtype") {
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16, DType::kI8}) {
    CHECK(std::string(kernel_table(Isa::kSimd128).embed.of(dtype).name) == "embed_scalar");
  }
}

}  // namespace laya::kernels
