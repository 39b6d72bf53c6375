// The JSON the wasm boundary speaks where the package shows it as it is: float text (the one
// formatter the CLI prints), the embeddings document, predictShortlist's options and the config
// summary that becomes model.config.
#include "session/wire.h"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "session/fixture_files.h"

using laya::json::Value;

namespace {

std::string float_text(float x) {
  std::string out;
  laya::wire::append_float(out, x);
  return out;
}

Value options(const std::string& text) {
  auto v = laya::json::parse(text, "options", {.allow_nonfinite = true});
  REQUIRE(v.ok());
  return std::move(v).value();
}

std::string options_error(const std::string& text) {
  auto r = laya::wire::shortlist_options(options(text));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == laya::ErrorCode::kInvalidRequest);
  return r.error().message;
}

}  // namespace

TEST_CASE("a float is written as the shortest text that reads back as the same f32") {
  CHECK(float_text(0.1f) == "0.1");
  CHECK(float_text(-2.0f) == "-2");
  CHECK(float_text(1.0f / 3.0f) == "0.33333334");
  CHECK(float_text(1e-7f) == "1e-07");
  CHECK(float_text(std::numeric_limits<float>::quiet_NaN()) == "NaN");
  CHECK(float_text(-std::numeric_limits<float>::infinity()) == "-Infinity");
}

TEST_CASE("embeddings are written one row of dim floats per text") {
  const float rows[] = {0.1f, -2.0f, 0.5f, 3.0f};
  CHECK(laya::wire::embeddings(rows, 2) == R"({"embeddings": [[0.1, -2], [0.5, 3]]})");
  CHECK(laya::wire::embeddings({}, 0) == R"({"embeddings": []})");
}

TEST_CASE("shortlist options default to k 20 and maxLength 512, and name a value that is not a positive integer") {
  auto defaults = laya::wire::shortlist_options(options(R"({"k": null, "shape": "0.3.7"})"));
  REQUIRE(defaults.ok());
  CHECK(defaults.value().k == 20);
  CHECK(defaults.value().max_length == 512);
  auto given = laya::wire::shortlist_options(options(R"({"k": 3, "maxLength": 16})"));
  REQUIRE(given.ok());
  CHECK(given.value().k == 3);
  CHECK(given.value().max_length == 16);
  CHECK(options_error(R"({"k": 0})") == "predictShortlist: k must be a positive integer, got 0");
  CHECK(options_error(R"({"k": 2.5})") == "predictShortlist: k must be a positive integer, got 2.5");
  CHECK(options_error(R"({"k": NaN})") == "predictShortlist: k must be a positive integer, got NaN");
  CHECK(options_error(R"({"k": "3"})") == "predictShortlist: k must be a positive integer, got 3");
  CHECK(options_error(R"({"maxLength": -1})") == "predictShortlist: maxLength must be a positive integer, got -1");
}

TEST_CASE("the config summary is what the engine parsed, with its defaults") {
  laya::Session session;
  laya::testing::configure_from(session, laya::testing::reference_dir("tiny-fanin") + "/checkpoint");
  CHECK(laya::wire::config_summary(session.config()) ==
        R"({"encoder": "laya-wasm-fixture/random-modernbert-d64-l4", "modelName": "laya-wasm-fixture-random", )"
        R"("modelType": "modernbert", "hiddenSize": 64, "encoderLayers": 4, "attentionHeads": 1, "intermediateSize": 96, )"
        R"("vocabSize": 512, "headLayers": 2, "maxLen": 512, "headMaxLen": 192, "actOutputs": 2})");
}

TEST_CASE("forward outputs flatten to one float array, decisions (logits then act) then embeddings, with the lengths that cut it") {
  const std::vector<laya::DecisionOutput> decisions = {{{1.5f, -2.0f}, {0.25f}}, {{3.0f}, {4.0f, 5.0f, 6.0f}}};
  const std::vector<std::vector<float>> embeddings = {{7.0f, 8.0f}, {}};
  const laya::wire::FlatForwardOutputs flat = laya::wire::flatten_forward_outputs(decisions, embeddings);
  CHECK(flat.floats == std::vector<float>{1.5f, -2.0f, 0.25f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f});
  CHECK(flat.lengths == R"({"logits": [2, 1], "act": [1, 3], "pooled": [2, 0]})");
}

TEST_CASE("no outputs flatten to nothing, with empty length lists") {
  const laya::wire::FlatForwardOutputs flat = laya::wire::flatten_forward_outputs({}, {});
  CHECK(flat.floats.empty());
  CHECK(flat.lengths == R"({"logits": [], "act": [], "pooled": []})");
}
