#include "kernels/attention.h"

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernel_test_util.h"
#include "kernels/kernel_table.h"
#include "kernels/rope.h"

namespace laya::kernels {
namespace {

// Attention written from the definition in f64, with visibility as an explicit predicate.
std::vector<double> reference(const std::vector<float>& qkv, int64_t heads, const std::vector<int32_t>& starts,
                              int64_t window) {
  const int64_t d = heads * kHeadDim, stride = 3 * d;
  std::vector<double> out(static_cast<size_t>(starts.back() * d));
  for (size_t s = 0; s + 1 < starts.size(); ++s) {
    const int64_t first = starts[s], len = starts[s + 1] - first;
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t i = 0; i < len; ++i) {
        std::vector<double> w(len, 0.0);
        double max = -INFINITY, sum = 0;
        for (int64_t j = 0; j < len; ++j) {
          if (window >= 0 && std::llabs(i - j) > window) continue;
          double dot = 0;
          for (int64_t t = 0; t < kHeadDim; ++t) {
            dot += static_cast<double>(qkv[(first + i) * stride + h * kHeadDim + t]) *
                   qkv[(first + j) * stride + d + h * kHeadDim + t];
          }
          w[j] = dot / 8.0;
          max = std::fmax(max, w[j]);
        }
        for (int64_t j = 0; j < len; ++j) {
          if (window >= 0 && std::llabs(i - j) > window) {
            w[j] = 0;
            continue;
          }
          w[j] = std::exp(w[j] - max);
          sum += w[j];
        }
        for (int64_t t = 0; t < kHeadDim; ++t) {
          double acc = 0;
          for (int64_t j = 0; j < len; ++j) acc += w[j] * qkv[(first + j) * stride + 2 * d + h * kHeadDim + t];
          out[(first + i) * d + h * kHeadDim + t] = acc / sum;
        }
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("scalar attention matches an f64 reference, with and without a window") {
  std::mt19937 rng(21);
  const int64_t heads = 2;
  const std::vector<int32_t> starts = {0, 1, 8, 30, 31, 50};
  const int64_t tokens = starts.back(), d = heads * kHeadDim;
  auto qkv = testing::random_floats(rng, tokens * 3 * d, 0.5f);
  for (int64_t window : {-1, 0, 1, 3, 7, 100}) {
    std::vector<float> out(tokens * d, 0.0f);
    std::vector<float> scratch(attention_scratch_floats_scalar(40));
    attention_f32_scalar({qkv.data(), out.data(), heads, starts.data(), window}, 0, 5 * heads, scratch.data());
    auto want = reference(qkv, heads, starts, window);
    INFO("window " << window);
    for (size_t i = 0; i < out.size(); ++i) REQUIRE(testing::close(out[i], want[i], 1e-5));
  }
}

TEST_CASE("the window is inclusive: a query sees keys at distance w on both sides, not w + 1") {
  // With q = 0 every visible key gets the same weight, so each output is the mean of the visible
  // values; value row j is one-hot at column j, so the output shows which keys were visible.
  const int64_t len = 20, heads = 1, d = kHeadDim, stride = 3 * d;
  std::vector<float> qkv(len * stride, 0.0f);
  for (int64_t j = 0; j < len; ++j) {
    for (int64_t t = 0; t < kHeadDim; ++t) qkv[j * stride + d + t] = 0.25f * static_cast<float>(t + j);  // keys
    qkv[j * stride + 2 * d + j] = 1.0f;  // value j is one-hot at column j
  }
  const std::vector<int32_t> starts = {0, len};
  const int64_t w = 4;
  std::vector<float> out(len * d);
  std::vector<float> scratch(len);
  attention_f32_scalar({qkv.data(), out.data(), heads, starts.data(), w}, 0, heads, scratch.data());
  for (int64_t i = 0; i < len; ++i) {
    const int64_t lo = std::max<int64_t>(0, i - w), hi = std::min<int64_t>(len - 1, i + w);
    const float share = 1.0f / static_cast<float>(hi - lo + 1);
    for (int64_t j = 0; j < len; ++j) {
      INFO("query " << i << " key " << j);
      if (j >= lo && j <= hi) {
        REQUIRE(out[i * d + j] == doctest::Approx(share).epsilon(1e-6));
      } else {
        REQUIRE(out[i * d + j] == 0.0f);
      }
    }
  }
}

TEST_CASE("a sequence of one token attends to itself: the output is its value") {
  std::mt19937 rng(22);
  const int64_t heads = 3, d = heads * kHeadDim;
  auto qkv = testing::random_floats(rng, 3 * d);
  std::vector<float> out(d);
  const std::vector<int32_t> starts = {0, 1};
  std::vector<float> scratch(1);
  attention_f32_scalar({qkv.data(), out.data(), heads, starts.data(), -1}, 0, heads, scratch.data());
  for (int64_t t = 0; t < d; ++t) CHECK(out[t] == qkv[2 * d + t]);
}

TEST_CASE("attention split into any ranges of (sequence, head) items gives the bits of the whole") {
  std::mt19937 rng(23);
  const int64_t heads = 3;
  const std::vector<int32_t> starts = {0, 9, 10, 40};
  const int64_t tokens = starts.back(), d = heads * kHeadDim, items = 3 * heads;
  auto qkv = testing::random_floats(rng, tokens * 3 * d, 0.5f);
  for (Isa isa : {Isa::kScalar, best_isa()}) {
    const KernelTable& table = kernel_table(isa);
    std::vector<float> scratch(table.attention_scratch_floats(30));
    std::vector<float> whole(tokens * d, 0.0f);
    const auto kernel = table.attention;
    kernel.fn({qkv.data(), whole.data(), heads, starts.data(), 4}, 0, items, scratch.data());
    for (int64_t cut : {1, 2, 4, 5, 8}) {
      std::vector<float> parts(tokens * d, 0.0f);
      kernel.fn({qkv.data(), parts.data(), heads, starts.data(), 4}, cut, items, scratch.data());
      kernel.fn({qkv.data(), parts.data(), heads, starts.data(), 4}, 0, cut, scratch.data());
      INFO(isa_name(isa) << " cut at item " << cut);
      for (size_t i = 0; i < whole.size(); ++i) REQUIRE(testing::same_bits(parts[i], whole[i]));
    }
  }
}

}  // namespace laya::kernels
