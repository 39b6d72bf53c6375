#include "decide/answer.h"

#include <doctest/doctest.h>

#include <cmath>

#include "decide/pyjson.h"
#include "upstream_fixture.h"

using laya::json::Value;
using laya::decide::Answer;
using laya::decide::append_answer_json;
using laya::decide::clamp_temperature;
using laya::decide::compute_answer;
using laya::decide::dumps;
using laya::decide::load_calibration;
using laya::decide::parse_questions;
using laya::decide::QType;
using laya::decide::Question;
using laya::decide::temperature_bucket;
using laya::decide::testing::load_upstream_cases;
using laya::decide::testing::parse_or_fail;
using laya::decide::testing::upstream_config;

namespace {

Question one_question(const std::string& json) {
  auto r = parse_questions(parse_or_fail(json, "questions"), {});
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return r.value().at(0);
}

std::string answer_json(const Question& q, std::vector<float> logits, std::vector<float> act, double t,
                        bool with_answer_confidence = true) {
  auto a = compute_answer(q, logits, act, t);
  REQUIRE_MESSAGE(a.ok(), (a.ok() ? "" : a.error().message));
  std::string out;
  append_answer_json(out, q, a.value(), {.answer_confidence = with_answer_confidence});
  return out;
}

}  // namespace

TEST_CASE("every fixture answer is rebuilt byte for byte from the recorded logits") {
  // Upstream's answer object as json.dumps wrote it (dumps reproduces every recorded line exactly,
  // see pyjson_test), against ours in the 0.3.7 shape the fixtures were recorded in.
  auto loaded = load_calibration(upstream_config());
  REQUIRE(loaded.ok());
  const auto& calibration = loaded.value().calibration;
  int cases = 0, questions = 0, mismatches = 0;
  for (const auto& c : load_upstream_cases()) {
    ++cases;
    auto parsed = parse_questions(c.questions, {.instructions_ensure_ascii = true});
    REQUIRE(parsed.ok());
    const Value* answers = c.answer.find("answers");
    for (size_t i = 0; i < c.recorded.size(); ++i) {
      ++questions;
      const Question& q = parsed.value()[i];
      const auto& rec = c.recorded[i];
      const double t = calibration.temperature(q.type, rec.markers.size());
      const std::string got = answer_json(q, rec.logits, rec.act, t, /*with_answer_confidence=*/false);
      const std::string want = dumps(*answers->find(q.id), false);
      if (got != want && ++mismatches <= 5) MESSAGE(c.id << " " << q.id << "\n got " << got << "\nwant " << want);
    }
  }
  MESSAGE("answered " << cases << " cases, " << questions << " questions");
  CHECK(cases == 134);
  CHECK(questions == 445);
  CHECK(mismatches == 0);
}

TEST_CASE("the English config clamps choice:11+ and warns with upstream's text") {
  auto loaded = load_calibration(upstream_config());
  REQUIRE(loaded.ok());
  const auto& cal = loaded.value().calibration;
  CHECK(cal.temperature(QType::kChoice, 20) == 0.5);
  CHECK(cal.temperature(QType::kChoice, 3) == 1.7601518630981445);
  CHECK(cal.temperature(QType::kChoice, 1) == 1.9063563346862793);
  CHECK(cal.temperature(QType::kScore, 7) == 1.2514300346374512);  // no score:6-10 bucket
  CHECK(cal.temperature(QType::kNoul, 2) == 1.983399510383606);
  CHECK(loaded.value().warning ==
        "laya: this checkpoint ships invalid temperatures or values outside [0.5, 5]; using "
        "choice:11+=0.10058280825614929 -> 0.5. Treat confidence from the affected entries as uncalibrated.");
}

TEST_CASE("invalid temperatures fall back to 1 and are listed after the by-option entries") {
  auto loaded = load_calibration(parse_or_fail(
      R"({"temperature": [null, "2.5", false], "temperature_by_options": {"noul:2": "x", "score:2": 9, "choice:2": 1}})",
      "cfg"));
  REQUIRE(loaded.ok());
  const auto& cal = loaded.value().calibration;
  CHECK(cal.by_type[0] == 1.0);
  CHECK(cal.by_type[1] == 2.5);
  CHECK(cal.by_type[2] == 0.5);
  CHECK(loaded.value().warning ==
        "laya: this checkpoint ships invalid temperatures or values outside [0.5, 5]; using noul:2='x' -> 1, "
        "score:2=9 -> 5, temperature[0]=None -> 1, temperature[2]=False -> 0.5. Treat confidence from the "
        "affected entries as uncalibrated.");
  auto defaults = load_calibration(parse_or_fail("{}", "cfg"));
  REQUIRE(defaults.ok());
  CHECK(defaults.value().warning.empty());
  CHECK(defaults.value().calibration.temperature(QType::kScore, 4) == 1.0);
  auto bad = load_calibration(parse_or_fail(R"({"temperature": [1, 2]})", "cfg"));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == laya::ErrorCode::kInvalidCheckpoint);
}

TEST_CASE("clamp_temperature follows Python's float() and the [0.5, 5] clamp") {
  CHECK(clamp_temperature(Value::number("0.1")) == 0.5);
  CHECK(clamp_temperature(Value::number("7")) == 5.0);
  CHECK(clamp_temperature(Value::number("1e400")) == 1.0);
  CHECK(clamp_temperature(Value::string(" 1.25 ")) == 1.25);
  CHECK(clamp_temperature(Value::string("nan")) == 1.0);
  CHECK(clamp_temperature(Value::boolean(true)) == 1.0);
  CHECK(clamp_temperature(parse_or_fail("[2]", "t")) == 1.0);
}

TEST_CASE("temperature buckets follow the option count") {
  CHECK(temperature_bucket(QType::kChoice, 1) == "choice:2");
  CHECK(temperature_bucket(QType::kChoice, 2) == "choice:2");
  CHECK(temperature_bucket(QType::kChoice, 3) == "choice:3-5");
  CHECK(temperature_bucket(QType::kScore, 5) == "score:3-5");
  CHECK(temperature_bucket(QType::kScore, 6) == "score:6-10");
  CHECK(temperature_bucket(QType::kChoice, 10) == "choice:6-10");
  CHECK(temperature_bucket(QType::kChoice, 11) == "choice:11+");
  CHECK(temperature_bucket(QType::kNoul, 2) == "noul:2");
}

TEST_CASE("answers have upstream's key order, with answer_confidence when asked") {
  const auto choice = one_question(R"({"q": {"type": "choice", "instructions": "x", "criteria": ["a", "b"]}})");
  CHECK(answer_json(choice, {0.0f, 0.0f}, {3017.9f, -2491.3f}, 1.0) ==
        R"({"type": "choice", "choice": "a", "probabilities": {"a": 0.5, "b": 0.5}, "confidence": 0.0, )"
        R"("answer_confidence": 0.5, "action": {"act_probability": 1.0}})");
  CHECK(answer_json(choice, {0.0f, 0.0f}, {0.0f, 0.0f}, 1.0, false) ==
        R"({"type": "choice", "choice": "a", "probabilities": {"a": 0.5, "b": 0.5}, "confidence": 0.0, )"
        R"("action": {"act_probability": 0.5}})");
  const auto noul = one_question(R"({"q": {"type": "noul", "instructions": "x"}})");
  CHECK(answer_json(noul, {1.0f, 1.0f}, {-5.0f, 5.0f}, 1.983399510383606) ==
        R"({"type": "noul", "noul": 0.5, "confidence": 0.5, "answer_confidence": 0.5, )"
        R"("action": {"act_probability": 0.0}})");
  const auto score = one_question(R"({"q": {"type": "score", "instructions": "x", "criteria": ["lo", {"m": 1.50}, 2]}})");
  CHECK(answer_json(score, {2.0f, 2.0f, 2.0f}, {1.0f, 0.0f}, 1.25) ==
        R"({"type": "score", "score": 1.0, "legend": {"0": "lo", "1": {"m": 1.5}, "2": 2}, )"
        R"("probabilities": {"0": 0.3333, "1": 0.3333, "2": 0.3333}, "confidence": 0.0, )"
        R"("answer_confidence": 0.3333, "action": {"act_probability": 0.7311}})");
}

TEST_CASE("a one-option choice is certain and non-string labels keep their JSON type") {
  const auto one = one_question(R"({"q": {"type": "choice", "instructions": "x", "criteria": [7]}})");
  CHECK(answer_json(one, {-3.5f}, {1.0f, 1.0f}, 1.9) ==
        R"({"type": "choice", "choice": 7, "probabilities": {"7": 1.0}, "confidence": 1.0, )"
        R"("answer_confidence": 1.0, "action": {"act_probability": 0.5}})");
  const auto mixed = one_question(R"({"q": {"type": "choice", "instructions": "x", "criteria": [null, true, 2.5]}})");
  CHECK(answer_json(mixed, {0.0f, 50.0f, 0.0f}, {1.0f, 0.0f}, 1.0, false) ==
        R"({"type": "choice", "choice": true, "probabilities": {"null": 0.0, "true": 1.0, "2.5": 0.0}, )"
        R"("confidence": 1.0, "action": {"act_probability": 0.7311}})");
}

TEST_CASE("from upstream 0.3.22 legend values are the levels rendered as text") {
  // laya-spec-current §3.1's table: a string passes, anything else is json.dumps text.
  const auto score = one_question(
      R"({"q": {"type": "score", "instructions": "x", "criteria": [1, 2.5, true, {"a":[1,2]}, 1e-5, "lo"]}})");
  auto a = compute_answer(score, std::vector<float>(6, 0.0f), std::vector<float>{0.0f, 0.0f}, 1.0);
  REQUIRE(a.ok());
  std::string rendered, echoed;
  append_answer_json(rendered, score, a.value(), {.rendered_legend = true});
  append_answer_json(echoed, score, a.value(), {});
  CHECK(rendered.find(R"("legend": {"0": "1", "1": "2.5", "2": "true", "3": "{\"a\": [1, 2]}", "4": "1e-05", "5": "lo"})") !=
        std::string::npos);
  CHECK(echoed.find(R"("legend": {"0": 1, "1": 2.5, "2": true, "3": {"a": [1, 2]}, "4": 1e-05, "5": "lo"})") !=
        std::string::npos);
}

TEST_CASE("with an option_order the logits arrive in slot order and every field reads the caller's order") {
  const laya::decide::QuestionOptions newest{.newest_checks = true};
  const auto parse = [&](const char* json) {
    auto r = parse_questions(parse_or_fail(json, "questions"), newest);
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    return r.value().at(0);
  };
  const std::vector<float> act{0.0f, 0.0f};
  // Slot 0 carries option 2 ("c"): its logit 5 makes "c" the choice. e^5 / (e^5 + 2) = 0.98670.
  const auto choice = parse(R"({"q": {"type": "choice", "instructions": "x", "criteria": ["a", "b", "c"], "option_order": [2, 0, 1]}})");
  CHECK(answer_json(choice, {5.0f, 0.0f, 0.0f}, act, 1.0).find(
            R"("choice": "c", "probabilities": {"a": 0.0066, "b": 0.0066, "c": 0.9867})") != std::string::npos);
  // A tie goes to the first option in the caller's order, whatever the slots.
  const auto pair = parse(R"({"q": {"type": "choice", "instructions": "x", "criteria": ["a", "b"], "option_order": [1, 0]}})");
  auto tie = compute_answer(pair, std::vector<float>{0.0f, 0.0f}, act, 1.0);
  REQUIRE(tie.ok());
  CHECK(tie.value().choice == 0);
  // noul [1, 0]: slot 0 is the true option, so noul = p_slot[0] = e^2 / (e^2 + 1) = 0.88080.
  const auto noul = parse(R"({"q": {"type": "noul", "instructions": "x", "option_order": [1, 0]}})");
  CHECK(answer_json(noul, {2.0f, 0.0f}, act, 1.0).find(R"("noul": 0.8808, "confidence": 0.8808)") != std::string::npos);
  // The expected score runs over the caller's levels: level 1 holds e^3 / (e^3 + 1) = 0.95257.
  const auto score = parse(R"({"q": {"type": "score", "instructions": "x", "criteria": ["lo", "hi"], "option_order": [1, 0]}})");
  CHECK(answer_json(score, {3.0f, 0.0f}, act, 1.0).find(
            R"("score": 0.9526, "legend": {"0": "lo", "1": "hi"}, "probabilities": {"0": 0.0474, "1": 0.9526})") !=
        std::string::npos);
}

TEST_CASE("ties go to the first option and probabilities are softmax of logits over T in float32") {
  const auto q = one_question(R"({"q": {"type": "choice", "instructions": "x", "criteria": ["a", "b", "c"]}})");
  auto a = compute_answer(q, std::vector<float>{1.0f, 3.0f, 3.0f}, std::vector<float>{0.0f, 0.0f}, 2.0);
  REQUIRE(a.ok());
  CHECK(a.value().choice == 1);
  // exp(-1) / (exp(-1) + 2): T halves the gap of 2.
  CHECK(a.value().probabilities[0] == doctest::Approx(std::exp(-1.0) / (std::exp(-1.0) + 2.0)).epsilon(1e-6));
}

TEST_CASE("a non-finite logit fails the answer as invalid_checkpoint and names the question") {
  const auto q = one_question(R"({"it's": {"type": "noul", "instructions": "x"}})");
  auto a = compute_answer(q, std::vector<float>{0.0f, NAN}, std::vector<float>{0.0f, 0.0f}, 1.0);
  REQUIRE_FALSE(a.ok());
  CHECK(a.error().code == laya::ErrorCode::kInvalidCheckpoint);
  CHECK(a.error().message == "answer for question \"it's\" failed: the model returned nan as logit 1; "
                             "the checkpoint's weights hold NaN or Inf, or values that overflow");
  auto b = compute_answer(q, std::vector<float>{0.0f, 1.0f}, std::vector<float>{INFINITY, 0.0f}, 1.0);
  REQUIRE_FALSE(b.ok());
  CHECK(b.error().code == laya::ErrorCode::kInvalidCheckpoint);
  CHECK(b.error().message == "answer for question \"it's\" failed: the model returned inf as act logit 0; "
                             "the checkpoint's weights hold NaN or Inf, or values that overflow");
  // Too few logits for the options is the engine's fault, not the checkpoint's.
  auto c = compute_answer(q, std::vector<float>{0.0f}, std::vector<float>{0.0f, 0.0f}, 1.0);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().code == laya::ErrorCode::kInternal);
}
