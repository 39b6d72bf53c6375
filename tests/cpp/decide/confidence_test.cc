#include "decide/confidence.h"

#include <doctest/doctest.h>

#include "upstream_fixture.h"

using laya::decide::append_gate_json;
using laya::decide::check_min_confidence;
using laya::decide::gate_answer;
using laya::decide::GateVerdict;
using laya::decide::MinConfidence;
using laya::decide::MinConfidenceKeys;
using laya::decide::QType;
using laya::decide::testing::parse_or_fail;

namespace {

// The message check_min_confidence gives for `json`, or "" when it is accepted.
std::string message(const std::string& json, MinConfidenceKeys keys = MinConfidenceKeys::kBuckets) {
  auto r = check_min_confidence(parse_or_fail(json, "min_confidence"), keys);
  if (r.ok()) return "";
  CHECK(r.error().code == laya::ErrorCode::kInvalidRequest);
  return r.error().message;
}

MinConfidence gate(const std::string& json) {
  auto r = check_min_confidence(parse_or_fail(json, "min_confidence"));
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  REQUIRE(r.value().has_value());
  return *r.value();
}

std::string gate_json(const GateVerdict& v) {
  std::string out;
  append_gate_json(out, v);
  return out;
}

}  // namespace

// Expected texts are laya-spec-current §4.2's format strings filled in by hand.
TEST_CASE("a single min_confidence is a finite number in [0, 1], never a bool") {
  CHECK(message("null") == "");
  CHECK(message("0") == "");
  CHECK(message("1") == "");
  CHECK(message("0.5") == "");
  const std::string prefix = "min_confidence must be a float in [0.0, 1.0], got ";
  CHECK(message("1.5") == prefix + "1.5");
  CHECK(message("-0.1") == prefix + "-0.1");
  CHECK(message("true") == prefix + "True");
  CHECK(message("NaN") == prefix + "nan");
  CHECK(message("Infinity") == prefix + "inf");
  CHECK(message(R"("0.5")") == prefix + "'0.5'");
  CHECK(message("[0.5]") == prefix + "[0.5]");
  CHECK(message("2") == prefix + "2");
}

TEST_CASE("a min_confidence map is non-empty, keyed by the twelve buckets or default") {
  CHECK(message("{}") == "a min_confidence map must be a non-empty dict of bucket -> float, got {}");
  CHECK(message(R"({"choice:3-5": 0.4, "noul:2": 1, "score:11+": 0, "default": 0.2})") == "");
  CHECK(message(R"({"choice:3": 0.4})") ==
        "min_confidence map keys must be a bucket like 'choice:3-5' or 'default', got 'choice:3'");
  CHECK(message(R"({"noul:2": 0.5, "Default": 0.2})") ==
        "min_confidence map keys must be a bucket like 'choice:3-5' or 'default', got 'Default'");
  // Each value follows the single-number rule, in insertion order.
  CHECK(message(R"({"noul:2": false, "x": 0.2})") == "min_confidence must be a float in [0.0, 1.0], got False");
  // Before 0.3.29 any string key passed.
  CHECK(message(R"({"choice:3": 0.4})", MinConfidenceKeys::kAnyString) == "");
}

TEST_CASE("the threshold is the number, or map[bucket], map[default], 0.0") {
  const MinConfidence single = gate("0.7");
  CHECK(single.threshold(QType::kScore, 5) == 0.7);
  const MinConfidence map = gate(R"({"choice:3-5": 0.4, "default": 0.2, "noul:2": 0.9})");
  CHECK(map.threshold(QType::kChoice, 4) == 0.4);
  CHECK(map.threshold(QType::kChoice, 6) == 0.2);
  CHECK(map.threshold(QType::kNoul, 2) == 0.9);
  CHECK(gate(R"({"choice:2": 0.6})").threshold(QType::kChoice, 1) == 0.6);  // a 1-option choice is choice:2
  CHECK(gate(R"({"choice:2": 0.6})").threshold(QType::kScore, 2) == 0.0);
}

TEST_CASE("the gate flags an answer strictly below its threshold and always writes the abstention state") {
  const MinConfidence half = gate("0.5");
  CHECK(gate_json(gate_answer(half, QType::kChoice, 3, 0.4999)) ==
        R"(, "low_confidence": true, "abstention": "abstained", "abstention_threshold": 0.5)");
  CHECK(gate_json(gate_answer(half, QType::kChoice, 3, 0.5)) ==
        R"(, "abstention": "passed", "abstention_threshold": 0.5)");
  CHECK(gate_json(gate_answer(half, QType::kChoice, 3, std::nullopt)) ==
        R"(, "abstention": "unevaluated", "abstention_threshold": 0.5)");
  // A threshold given as an int is written as a float.
  CHECK(gate_json(gate_answer(gate("1"), QType::kNoul, 2, 0.9999)) ==
        R"(, "low_confidence": true, "abstention": "abstained", "abstention_threshold": 1.0)");
  CHECK(gate_json(gate_answer(gate("0"), QType::kNoul, 2, 0.0)) ==
        R"(, "abstention": "passed", "abstention_threshold": 0.0)");
  // A bucket the map does not name, with no default, is held to 0.0.
  CHECK(gate_json(gate_answer(gate(R"({"noul:2": 0.9})"), QType::kScore, 3, 0.1)) ==
        R"(, "abstention": "passed", "abstention_threshold": 0.0)");
}
