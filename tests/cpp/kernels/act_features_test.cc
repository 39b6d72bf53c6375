#include "kernels/act_features.h"

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

TEST_CASE("act features match the PyTorch reference's for the recorded logits") {
  // activations.json records one input's raw marker logits and the act features computed from them.
  for (const char* set : {"tiny-fanin", "small-fanin"}) {
    const std::string path = std::string(LAYA_FIXTURES_DIR) + "/reference/" + set + "/activations.json";
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    auto doc = json::parse(ss.str(), path);
    REQUIRE(doc.ok());
    const json::Value* stages = doc.value().find("stages");
    REQUIRE(stages != nullptr);
    std::vector<float> logits;
    for (const auto& x : stages->find("logits")->items()) logits.push_back(static_cast<float>(x.as_double()));
    std::vector<float> want;
    for (const auto& x : stages->find("act_features")->items()) want.push_back(static_cast<float>(x.as_double()));
    REQUIRE(want.size() == 4);
    float got[4];
    act_features_of(logits.data(), static_cast<int64_t>(logits.size()), got);
    for (int i = 0; i < 4; ++i) {
      INFO(set << " feature " << i);
      CHECK(std::fabs(got[i] - want[i]) <= 2e-7);
    }
  }
}

TEST_CASE("a single marker gives features [1, 1, 0, 2/255]") {
  const float logit = -3.5f;
  float f[4];
  act_features_of(&logit, 1, f);
  CHECK(f[0] == 1.0f);
  CHECK(f[1] == 1.0f);
  CHECK(f[2] == 0.0f);
  CHECK(f[3] == 2.0f / 255.0f);
}

TEST_CASE("tied logits give top1 = top2 and full entropy") {
  const float logits[] = {0.5f, 0.5f, 0.5f, 0.5f};
  float f[4];
  act_features_of(logits, 4, f);
  CHECK(f[0] == 0.25f);
  CHECK(f[1] == 0.0f);
  CHECK(f[2] == doctest::Approx(1.0).epsilon(1e-6));
  CHECK(f[3] == 4.0f / 255.0f);
}

TEST_CASE("ActFeatures appends the features to each sequence's first token row") {
  std::mt19937 rng(41);
  const int64_t width = 3;
  const int32_t starts[] = {0, 4, 6};
  const int32_t marker_starts[] = {0, 2, 5};
  const int32_t markers[] = {1, 3, 0, 1, 1};
  Packing p{nullptr, starts, marker_starts, markers, nullptr, 2};
  auto h = testing::random_floats(rng, 6 * width);
  auto logits = testing::random_floats(rng, 5);
  std::vector<float> out(2 * (width + 4));
  act_features_f32_scalar(h.data(), logits.data(), out.data(), width, p, 0, 2);
  for (int s = 0; s < 2; ++s) {
    for (int j = 0; j < width; ++j) CHECK(out[s * (width + 4) + j] == h[starts[s] * width + j]);
    float f[4];
    act_features_of(logits.data() + marker_starts[s], marker_starts[s + 1] - marker_starts[s], f);
    for (int i = 0; i < 4; ++i) CHECK(out[s * (width + 4) + width + i] == f[i]);
  }
}

}  // namespace laya::kernels
