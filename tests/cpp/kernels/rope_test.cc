#include "kernels/rope.h"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kernel_test_util.h"
#include "util/json.h"

namespace laya::kernels {
namespace {

json::Value read_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  auto v = json::parse(ss.str(), path);
  REQUIRE_MESSAGE(v.ok(), path);
  return std::move(v).value();
}

std::vector<double> numbers(const json::Value& v) {
  std::vector<double> out;
  for (const auto& x : v.items()) out.push_back(x.as_double());
  return out;
}

}  // namespace

TEST_CASE("inverse frequencies and the cos/sin of position 1 match the PyTorch reference") {
  // activations.json holds HF's rotary inv_freq and one row of its cos / sin per layer kind.
  const json::Value a = read_json(std::string(LAYA_FIXTURES_DIR) + "/reference/tiny-fanin/activations.json");
  const json::Value* rope = a.find("rope");
  REQUIRE(rope != nullptr);
  int checked = 0;
  for (const auto& member : rope->members()) {
    const std::string& kind = member.first;  // a plain name: clang 14 cannot capture bindings in INFO
    const json::Value& r = member.second;
    const double theta = r.find("theta")->as_double();
    const auto inv = numbers(*r.find("inv_freq"));
    const auto cos1 = numbers(*r.find("cos_row1"));
    const auto sin1 = numbers(*r.find("sin_row1"));
    // HF's rows cover all 64 dims (the 32 angles twice, rotate_half); the first 32 are ours.
    REQUIRE(inv.size() == kRopePairs);
    REQUIRE(cos1.size() >= kRopePairs);
    const RopeTable t = make_rope_table(theta, 2);
    for (int64_t j = 0; j < kRopePairs; ++j) {
      INFO(kind << " pair " << j);
      // Within one f32 ulp: the reference's pow may round the other way.
      CHECK(std::fabs(rope_inv_freq(theta, j) - inv[j]) <= std::ldexp(std::fabs(inv[j]), -23));
      CHECK(std::fabs(t.cos[kRopePairs + j] - cos1[j]) <= 1.2e-7);
      CHECK(std::fabs(t.sin[kRopePairs + j] - sin1[j]) <= 1.2e-7);
      CHECK(t.cos[j] == 1.0f);
      CHECK(t.sin[j] == 0.0f);
      if (cos1.size() == 2 * kRopePairs) CHECK(cos1[j] == cos1[j + kRopePairs]);
    }
    ++checked;
  }
  CHECK(checked == 2);
}

TEST_CASE("RoPE rotates dim j with j + 32 of every q and k head and leaves v alone") {
  std::mt19937 rng(5);
  const int64_t heads = 2, len = 6, width = 3 * heads * kHeadDim;
  const double theta = 10000.0;
  auto x = testing::random_floats(rng, len * width);
  std::vector<float> y = x;
  const int32_t starts[] = {0, len};
  const RopeTable t = make_rope_table(theta, len);
  rope_f32_scalar({y.data(), heads, starts, &t}, 0, 1);
  for (int64_t p = 0; p < len; ++p) {
    for (int64_t h = 0; h < 3 * heads; ++h) {
      for (int64_t j = 0; j < kRopePairs; ++j) {
        const int64_t lo = p * width + h * kHeadDim + j;
        const int64_t hi = lo + kRopePairs;
        if (h >= 2 * heads) {  // a v head
          REQUIRE(y[lo] == x[lo]);
          REQUIRE(y[hi] == x[hi]);
          continue;
        }
        const double angle = p * std::pow(theta, -2.0 * j / 64.0);
        const double c = std::cos(angle), s = std::sin(angle);
        INFO("position " << p << " head " << h << " pair " << j);
        REQUIRE(std::fabs(y[lo] - (x[lo] * c - x[hi] * s)) <= 2e-5 * std::fmax(1.0, p));
        REQUIRE(std::fabs(y[hi] - (x[hi] * c + x[lo] * s)) <= 2e-5 * std::fmax(1.0, p));
        if (p == 0) REQUIRE((y[lo] == x[lo] && y[hi] == x[hi]));
      }
    }
  }
}

TEST_CASE("RoPE positions restart at 0 in every sequence of a packed batch") {
  std::mt19937 rng(6);
  const int64_t heads = 1, width = 3 * kHeadDim;
  const int32_t starts[] = {0, 3, 4, 9};
  auto x = testing::random_floats(rng, 9 * width);
  const RopeTable t = make_rope_table(160000.0, 9);
  std::vector<float> packed = x;
  rope_f32_scalar({packed.data(), heads, starts, &t}, 0, 3);
  for (int s = 0; s < 3; ++s) {
    const int64_t first = starts[s], len = starts[s + 1] - starts[s];
    std::vector<float> alone(x.begin() + first * width, x.begin() + (first + len) * width);
    const int32_t one[] = {0, static_cast<int32_t>(len)};
    rope_f32_scalar({alone.data(), heads, one, &t}, 0, 1);
    for (int64_t i = 0; i < len * width; ++i) REQUIRE(testing::same_bits(alone[i], packed[first * width + i]));
  }
}

}  // namespace laya::kernels
