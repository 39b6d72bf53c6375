#include "decide/request.h"

#include <doctest/doctest.h>

#include <cmath>
#include <map>

#include "decide/pyjson.h"
#include "upstream_fixture.h"

using laya::json::Value;
using laya::decide::answer_request;
using laya::decide::DecideConfig;
using laya::decide::Dialect;
using laya::decide::dumps;
using laya::decide::load_calibration;
using laya::decide::parse_state;
using laya::decide::predict;
using laya::decide::prepare_request;
using laya::decide::QType;
using laya::decide::Row;
using laya::decide::RowOutput;
using laya::decide::StateForm;
using laya::decide::TextEncoder;
using laya::decide::testing::load_upstream_cases;
using laya::decide::testing::numbers;
using laya::decide::testing::parse_or_fail;
using laya::decide::testing::UpstreamCase;
using laya::decide::testing::upstream_config;

namespace {

DecideConfig english_config(Dialect dialect) {
  DecideConfig config;
  config.special = {50281, 50282, 50284};
  config.mask_literal = "[MASK]";
  const Value cfg = upstream_config();
  config.budgets = {static_cast<int>(cfg.find("max_len")->as_int64().value()),
                    static_cast<int>(cfg.find("head_max_len")->as_int64().value())};
  auto calibration = load_calibration(cfg);
  REQUIRE(calibration.ok());
  config.calibration = calibration.value().calibration;
  config.dialect = dialect;
  return config;
}

// An encoder that answers with the ids upstream's tokenizer gave for each recorded text: a text
// rendered differently from upstream's is not found, and is counted.
struct RecordedEncoder {
  std::map<std::string, std::vector<int32_t>> ids;
  int misses = 0;

  explicit RecordedEncoder(const UpstreamCase& c) {
    for (const auto& rec : c.recorded) {
      ids[rec.pieces.find("head")->as_string()] = numbers<int32_t>(*rec.pieces.find("head_ids"));
      ids[rec.pieces.find("state")->as_string()] = numbers<int32_t>(*rec.pieces.find("state_ids"));
      const auto& texts = rec.pieces.find("options")->items();
      const auto& option_ids = rec.pieces.find("option_ids")->items();
      for (size_t k = 0; k < texts.size(); ++k) ids[texts[k].as_string()] = numbers<int32_t>(option_ids[k]);
    }
  }
  TextEncoder encoder() {
    return [this](std::string_view text) {
      auto it = ids.find(std::string(text));
      if (it == ids.end()) {
        ++misses;
        return std::vector<int32_t>{};
      }
      return it->second;
    };
  }
};

// A tiny stand-in encoder: one id per byte.
std::vector<int32_t> bytes_encoder(std::string_view text) {
  std::vector<int32_t> out;
  for (char c : text) out.push_back(static_cast<unsigned char>(c));
  return out;
}

}  // namespace

TEST_CASE("every fixture request: rows from the recorded pieces, then the 0.3.7 answer byte for byte") {
  const DecideConfig config = english_config(Dialect::v0_3_7());
  int cases = 0, questions = 0, row_mismatches = 0, answer_mismatches = 0, encoder_misses = 0;
  for (const auto& c : load_upstream_cases()) {
    ++cases;
    RecordedEncoder encoder(c);
    auto prepared = prepare_request(c.state, c.questions, encoder.encoder(), config);
    REQUIRE_MESSAGE(prepared.ok(), c.id << ": " << (prepared.ok() ? "" : prepared.error().message));
    encoder_misses += encoder.misses;
    REQUIRE(prepared.value().rows.size() == c.recorded.size());
    std::vector<RowOutput> outputs;
    for (size_t i = 0; i < c.recorded.size(); ++i) {
      ++questions;
      const Row& row = prepared.value().rows[i];
      if ((row.ids != c.recorded[i].ids || row.markers != c.recorded[i].markers) && ++row_mismatches <= 5) {
        MESSAGE(c.id << " " << c.recorded[i].qid);
      }
      outputs.push_back({c.recorded[i].logits, c.recorded[i].act});
    }
    auto response = answer_request(prepared.value(), outputs, config);
    REQUIRE(response.ok());
    const std::string want = dumps(c.answer, false);
    if (response.value() != want && ++answer_mismatches <= 5) {
      MESSAGE(c.id << "\n got " << response.value() << "\nwant " << want);
    }
  }
  MESSAGE("requests " << cases << ", questions " << questions);
  CHECK(cases == 134);
  CHECK(questions == 445);
  CHECK(encoder_misses == 0);
  CHECK(row_mismatches == 0);
  CHECK(answer_mismatches == 0);
}

TEST_CASE("empty questions answer with zero usage and never tokenize") {
  int calls = 0;
  const TextEncoder counting = [&](std::string_view) {
    ++calls;
    return std::vector<int32_t>{};
  };
  const auto forward = [&](const std::vector<Row>&) -> laya::Result<std::vector<RowOutput>> {
    ++calls;
    return std::vector<RowOutput>{};
  };
  auto r = predict(Value::string("state"), parse_or_fail("{}", "q"), counting, forward, english_config(Dialect::v0_3_21()));
  REQUIRE(r.ok());
  CHECK(r.value() ==
        R"({"model": "laya-rl-agent", "answers": {}, "usage": {"input_tokens": 0, "output_tokens": 0}})");
  CHECK(calls == 0);
}

TEST_CASE("predict tokenizes the scrubbed state once and answers every question in order") {
  DecideConfig config = english_config(Dialect::v0_3_21());
  config.special = {1, 2, 3};
  std::vector<std::string> encoded;
  const TextEncoder recording = [&](std::string_view text) {
    encoded.emplace_back(text);
    return bytes_encoder(text);
  };
  std::vector<Row> seen;
  const auto forward = [&](const std::vector<Row>& rows) -> laya::Result<std::vector<RowOutput>> {
    seen = rows;
    std::vector<RowOutput> out;
    for (const Row& r : rows) out.push_back({std::vector<float>(r.markers.size(), 0.0f), {10.0f, 0.0f}});
    return out;
  };
  const Value questions = parse_or_fail(
      R"({"z": {"type": "noul", "instructions": "ok?"}, "a": {"type": "choice", "instructions": "pick", "criteria": ["x", "y"]}})",
      "q");
  auto r = predict(parse_or_fail(R"({"t": "hi [MASK]"})", "s"), questions, recording, forward, config);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  REQUIRE(encoded.size() == 1 + 3 + 3);
  CHECK(encoded[0] == "{\"t\": \"hi  \"}");
  CHECK(encoded[1] == "noul question: ok?");
  CHECK(encoded[2] == " false: no, the statement does not hold");
  CHECK(encoded[4] == "choice question: pick");
  CHECK(encoded[5] == " x");
  REQUIRE(seen.size() == 2);
  CHECK(seen[0].qtype == QType::kNoul);
  CHECK(seen[1].qtype == QType::kChoice);
  CHECK(seen[1].markers.size() == 2);
  const size_t tokens = seen[0].ids.size() + seen[1].ids.size();
  CHECK(r.value() ==
        R"({"model": "laya-rl-agent", "answers": {"z": {"type": "noul", "noul": 0.5, "confidence": 0.5, )"
        R"("answer_confidence": 0.5, "action": {"act_probability": 1.0}}, "a": {"type": "choice", "choice": "x", )"
        R"("probabilities": {"x": 0.5, "y": 0.5}, "confidence": 0.0, "answer_confidence": 0.5, )"
        R"("action": {"act_probability": 1.0}}}, "usage": {"input_tokens": )" +
            std::to_string(tokens) + R"(, "output_tokens": 0}})");
}

TEST_CASE("0.3.21 reports collapsed options in usage, 0.3.7 does not") {
  DecideConfig config = english_config(Dialect::v0_3_21());
  config.special = {1, 2, 3};
  config.budgets = {512, 20};
  // Three options sharing their first 12 bytes: cut to per = 4 ids they become one span.
  const Value questions = parse_or_fail(
      R"({"q": {"type": "choice", "instructions": "i", "criteria": ["same prefix A", "same prefix B", "other"]}})", "q");
  const auto forward = [](const std::vector<Row>& rows) -> laya::Result<std::vector<RowOutput>> {
    return std::vector<RowOutput>{{{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f}}};
  };
  auto current = predict(Value::string(""), questions, bytes_encoder, forward, config);
  REQUIRE(current.ok());
  CHECK(current.value().find(R"("output_tokens": 0, "options": {"q": {"total": 3, "distinct": 2, "tokens_per_option": 4}}})") !=
        std::string::npos);
  config.dialect = Dialect::v0_3_7();
  auto old = predict(Value::string(""), questions, bytes_encoder, forward, config);
  REQUIRE(old.ok());
  CHECK(old.value().find("options") == std::string::npos);
  CHECK(old.value().find("answer_confidence") == std::string::npos);
}

TEST_CASE("array states are cut from the left, other states from the right") {
  DecideConfig config = english_config(Dialect::v0_3_21());
  config.special = {1, 2, 3};
  config.budgets = {40, 20};
  const Value questions = parse_or_fail(R"({"q": {"type": "choice", "instructions": "i", "criteria": ["a"]}})", "q");
  const std::string long_text(100, 'x');
  auto array = prepare_request(parse_or_fail(R"(["first", ")" + long_text + R"(", "last"])", "s"), questions,
                               bytes_encoder, config);
  REQUIRE(array.ok());
  const auto& ids = array.value().rows[0].ids;
  REQUIRE(ids.size() == 40);
  // room = 40 - 23 (prefix) - 1 = 16 state ids before the final [SEP]: the newest turn survives.
  CHECK(std::string(ids.end() - 17, ids.end() - 1) == "xxxxxx\", \"last\"]");
  auto object = prepare_request(parse_or_fail(R"({"first": ")" + long_text + R"("})", "s"), questions,
                                bytes_encoder, config);
  REQUIRE(object.ok());
  const auto& oid = object.value().rows[0].ids;
  CHECK(std::string(oid.end() - 17, oid.end() - 1) == "{\"first\": \"xxxxx");
}

TEST_CASE("errors name the question: validation, budget and non-finite logits") {
  DecideConfig config = english_config(Dialect::v0_3_21());
  config.special = {1, 2, 3};
  const auto zeros = [](const std::vector<Row>& rows) -> laya::Result<std::vector<RowOutput>> {
    std::vector<RowOutput> out;
    for (const Row& r : rows) out.push_back({std::vector<float>(r.markers.size(), NAN), {0.0f, 0.0f}});
    return out;
  };
  auto invalid = predict(Value::string("s"), parse_or_fail(R"({"q": {"type": "noul"}})", "q"), bytes_encoder, zeros, config);
  REQUIRE_FALSE(invalid.ok());
  CHECK(invalid.error().message == "question 'q': no 'instructions'; add the text the model should answer");

  config.budgets = {30, 192};
  auto crowded = predict(Value::string("s"),
                         parse_or_fail(R"({"many": {"type": "choice", "instructions": "i", "criteria": ["a", "b", "c", "d", "e", "f", "g"]}})", "q"),
                         bytes_encoder, zeros, config);
  REQUIRE_FALSE(crowded.ok());
  CHECK(crowded.error().message == "question 'many' options exceed head_max_len=192");

  config.budgets = {512, 192};
  auto nan = predict(Value::string("s"), parse_or_fail(R"({"n": {"type": "noul", "instructions": "i"}})", "q"),
                     bytes_encoder, zeros, config);
  REQUIRE_FALSE(nan.ok());
  CHECK(nan.error().code == laya::ErrorCode::kInvalidCheckpoint);
  CHECK(nan.error().message == "answer for question 'n' failed: the model returned nan as logit 0; "
                               "the checkpoint's weights hold NaN or Inf, or values that overflow");

  const auto short_forward = [](const std::vector<Row>&) -> laya::Result<std::vector<RowOutput>> {
    return std::vector<RowOutput>{};
  };
  auto missing = predict(Value::string("s"), parse_or_fail(R"({"n": {"type": "noul", "instructions": "i"}})", "q"),
                         bytes_encoder, short_forward, config);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == laya::ErrorCode::kInternal);
}

TEST_CASE("a state arrives as text or as JSON text, NaN and Infinity read as Python reads them") {
  auto text = parse_state("{not json", StateForm::kText);
  REQUIRE(text.ok());
  CHECK(text.value().as_string() == "{not json");
  auto json = parse_state(R"({"x": NaN, "y": [Infinity]})", StateForm::kJson);
  REQUIRE(json.ok());
  CHECK(dumps(json.value(), false) == R"({"x": NaN, "y": [Infinity]})");
  auto bad = parse_state("{", StateForm::kJson);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.rfind("state: invalid JSON at byte", 0) == 0);
}

namespace {

// A forward that gives every row the same logits (one per marker, from `logits`) and act {10, 0}.
laya::decide::Forward fixed_forward(std::vector<float> logits) {
  return [logits](const std::vector<Row>& rows) -> laya::Result<std::vector<RowOutput>> {
    std::vector<RowOutput> out;
    for (const Row& r : rows) {
      out.push_back({std::vector<float>(logits.begin(), logits.begin() + static_cast<std::ptrdiff_t>(r.markers.size())),
                     {10.0f, 0.0f}});
    }
    return out;
  };
}

DecideConfig bytes_config(Dialect dialect, laya::decide::Budgets budgets) {
  DecideConfig config = english_config(dialect);
  config.special = {1, 2, 3};
  config.budgets = budgets;
  return config;
}

std::string usage_of(const std::string& response) { return response.substr(response.find("\"usage\"")); }

// Two one-option choices: "a" has an 18-byte head ("choice question: i"), so its prefix is
// [CLS] 18 [SEP] [MASK] " x" [SEP] = 24 ids; "b" has a 19-byte head and a prefix of 25.
const char kTwoChoices[] = R"({"a": {"type": "choice", "instructions": "i", "criteria": ["x"]},
                               "b": {"type": "choice", "instructions": "ii", "criteria": ["x"]}})";

}  // namespace

TEST_CASE("current usage reports the state's ids, the most any question dropped, and which questions were cut") {
  // max_len 35: room is 35 - 24 - 1 = 10 for "a" and 9 for "b", so a 10-byte state loses 1 id in "b".
  DecideConfig config = bytes_config(Dialect::current(), {35, 192});
  auto r = predict(Value::string("0123456789"), parse_or_fail(kTwoChoices, "q"), bytes_encoder, fixed_forward({0.0f}), config);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  CHECK(usage_of(r.value()) ==
        R"("usage": {"input_tokens": 70, "output_tokens": 0, "state_tokens": 10, "state_tokens_dropped": 1, )"
        R"("truncated": true, "truncated_questions": ["b"]}})");
  // #687: the flags alone by default, the counts after them on request.
  config.truncation_usage = laya::decide::TruncationUsage::kFlagsOnly;
  r = predict(Value::string("0123456789"), parse_or_fail(kTwoChoices, "q"), bytes_encoder, fixed_forward({0.0f}), config);
  CHECK(usage_of(r.value()) ==
        R"("usage": {"input_tokens": 70, "output_tokens": 0, "truncated": true, "truncated_questions": ["b"]}})");
  config.truncation_usage = laya::decide::TruncationUsage::kFlagsThenCounts;
  r = predict(Value::string("0123456789"), parse_or_fail(kTwoChoices, "q"), bytes_encoder, fixed_forward({0.0f}), config);
  CHECK(usage_of(r.value()) ==
        R"("usage": {"input_tokens": 70, "output_tokens": 0, "truncated": true, "truncated_questions": ["b"], )"
        R"("state_tokens": 10, "state_tokens_dropped": 1}})");
}

TEST_CASE("current usage: an array state cut from the left counts its drops the same way") {
  // ["0123456789"] is 14 bytes: "a" keeps 10 (drops 4), "b" keeps 9 (drops 5).
  DecideConfig config = bytes_config(Dialect::current(), {35, 192});
  auto r = predict(parse_or_fail(R"(["0123456789"])", "s"), parse_or_fail(kTwoChoices, "q"), bytes_encoder,
                   fixed_forward({0.0f}), config);
  REQUIRE(r.ok());
  CHECK(usage_of(r.value()) ==
        R"("usage": {"input_tokens": 70, "output_tokens": 0, "state_tokens": 14, "state_tokens_dropped": 5, )"
        R"("truncated": true, "truncated_questions": ["a", "b"]}})");
}

TEST_CASE("current usage: an empty state is never truncated, empty questions carry no truncation keys") {
  DecideConfig config = bytes_config(Dialect::current(), {512, 192});
  auto r = predict(Value::string(""), parse_or_fail(kTwoChoices, "q"), bytes_encoder, fixed_forward({0.0f}), config);
  REQUIRE(r.ok());
  CHECK(usage_of(r.value()) ==
        R"("usage": {"input_tokens": 51, "output_tokens": 0, "state_tokens": 0, "state_tokens_dropped": 0, )"
        R"("truncated": false, "truncated_questions": []}})");
  auto none = predict(Value::string("x"), parse_or_fail("{}", "q"), bytes_encoder, fixed_forward({}), config);
  REQUIRE(none.ok());
  CHECK(none.value() == R"({"model": "laya-rl-agent", "answers": {}, "usage": {"input_tokens": 0, "output_tokens": 0}})");
  // 0.3.21 has no truncation keys at all.
  config.dialect = Dialect::v0_3_21();
  r = predict(Value::string(""), parse_or_fail(kTwoChoices, "q"), bytes_encoder, fixed_forward({0.0f}), config);
  CHECK(usage_of(r.value()) == R"("usage": {"input_tokens": 51, "output_tokens": 0}})");
}

TEST_CASE("current usage puts the truncation keys before options") {
  DecideConfig config = bytes_config(Dialect::current(), {512, 20});
  const Value questions = parse_or_fail(
      R"({"q": {"type": "choice", "instructions": "i", "criteria": ["same prefix A", "same prefix B", "other"]}})", "q");
  auto r = predict(Value::string(""), questions, bytes_encoder, fixed_forward({0.0f, 0.0f, 0.0f}), config);
  REQUIRE(r.ok());
  CHECK(usage_of(r.value()).find(
            R"("state_tokens": 0, "state_tokens_dropped": 0, "truncated": false, "truncated_questions": [], )"
            R"("options": {"q": {"total": 3, "distinct": 2, "tokens_per_option": 4}}})") != std::string::npos);
}

TEST_CASE("a min_confidence gate appends low_confidence, abstention and abstention_threshold after action") {
  DecideConfig config = bytes_config(Dialect::current(), {512, 192});
  config.min_confidence = laya::decide::MinConfidence{.single = 0.6, .by_bucket = {}};
  const Value questions = parse_or_fail(R"({"n": {"type": "noul", "instructions": "i"}})", "q");
  auto low = predict(Value::string("s"), questions, bytes_encoder, fixed_forward({0.0f, 0.0f}), config);
  REQUIRE(low.ok());
  CHECK(low.value().find(R"({"n": {"type": "noul", "noul": 0.5, "confidence": 0.5, "answer_confidence": 0.5, )"
                         R"("action": {"act_probability": 1.0}, "low_confidence": true, "abstention": "abstained", )"
                         R"("abstention_threshold": 0.6}})") != std::string::npos);
  // e^5 / (e^5 + 1) = 0.99331 passes.
  auto high = predict(Value::string("s"), questions, bytes_encoder, fixed_forward({0.0f, 5.0f}), config);
  REQUIRE(high.ok());
  CHECK(high.value().find(R"("action": {"act_probability": 1.0}, "abstention": "passed", "abstention_threshold": 0.6}})") !=
        std::string::npos);
  // Without a gate nothing is written.
  config.min_confidence.reset();
  auto plain = predict(Value::string("s"), questions, bytes_encoder, fixed_forward({0.0f, 0.0f}), config);
  CHECK(plain.value().find("abstention") == std::string::npos);
}

TEST_CASE("an option_order lays the options out in slot order, and only from upstream 0.3.22") {
  const Value questions = parse_or_fail(R"({"n": {"type": "noul", "instructions": "i", "option_order": [1, 0]}})", "q");
  const auto first_option = [&](Dialect dialect) {
    auto r = prepare_request(Value::string("s"), questions, bytes_encoder, bytes_config(dialect, {512, 192}));
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    const auto& row = r.value().rows[0];
    return std::string(row.ids.begin() + row.markers[0] + 1, row.ids.begin() + row.markers[1]);
  };
  CHECK(first_option(Dialect::current()) == " true: yes, the statement holds");
  CHECK(first_option(Dialect::v0_3_21()) == " false: no, the statement does not hold");
}

TEST_CASE("current list labels keep their JSON type in the choice, json.dumps keys, and str() option texts") {
  DecideConfig config = bytes_config(Dialect::current(), {512, 192});
  std::vector<std::string> encoded;
  const TextEncoder recording = [&](std::string_view text) {
    encoded.emplace_back(text);
    return bytes_encoder(text);
  };
  const Value questions =
      parse_or_fail(R"({"q": {"type": "choice", "instructions": "i", "criteria": [1.0, "1", 2.5, false]}})", "q");
  auto r = predict(Value::string("s"), questions, recording, fixed_forward({5.0f, 0.0f, 0.0f, 0.0f}), config);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  CHECK(r.value().find(R"("choice": 1.0, "probabilities": {"1.0": )") != std::string::npos);
  CHECK(r.value().find(R"(, "1": )") != std::string::npos);
  CHECK(r.value().find(R"(, "2.5": )") != std::string::npos);
  CHECK(r.value().find(R"(, "false": )") != std::string::npos);
  REQUIRE(encoded.size() == 6);
  CHECK(encoded[2] == " 1.0");
  CHECK(encoded[3] == " 1");
  CHECK(encoded[4] == " 2.5");
  CHECK(encoded[5] == " False");
}

TEST_CASE("current refuses what upstream 0.3.22 on refuses, with its budget message") {
  DecideConfig config = bytes_config(Dialect::current(), {30, 192});
  auto crowded = predict(Value::string("s"),
                         parse_or_fail(R"({"many": {"type": "choice", "instructions": "i", "criteria": ["a", "b", "c", "d", "e", "f", "g"]}})", "q"),
                         bytes_encoder, fixed_forward(std::vector<float>(7, 0.0f)), config);
  REQUIRE_FALSE(crowded.ok());
  // Prefix [CLS] 18 [SEP] = 20 ids, then 3 ids per option: markers at 20, 23, 26, 29 fit in 30.
  CHECK(crowded.error().message ==
        "question 'many': only 4 of its 7 option markers fit in max_len=30 with head_max_len=192 spent on the "
        "question; lower head_max_len, raise max_len, or use fewer options");
  auto dup = predict(Value::string("s"), parse_or_fail(R"({"q": {"type": "choice", "instructions": "i", "criteria": [1, true]}})", "q"),
                     bytes_encoder, fixed_forward({0.0f, 0.0f}), config);
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().message.rfind("question 'q': choice label 1 (True) repeats label 0", 0) == 0);
}

TEST_CASE("current checks the questions' type, then a null state, before any question") {
  DecideConfig config = bytes_config(Dialect::current(), {512, 192});
  const auto refused = [&](const Value& state, const char* questions) {
    auto r = prepare_request(state, parse_or_fail(questions, "q"), bytes_encoder, config);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == laya::ErrorCode::kInvalidRequest);
    return r.error().message;
  };
  CHECK(refused(Value::string("s"), "[1]") == "questions must be a dict of question id -> definition, got list");
  CHECK(refused(Value(), "null") == "questions must be a dict of question id -> definition, got NoneType");
  CHECK(refused(Value(), "{}") == "state must not be None; pass a string, dict, or list");
  CHECK(refused(Value(), R"({"q": 1})") == "state must not be None; pass a string, dict, or list");
  // 0.3.21 answers a null state as the text "null".
  config.dialect = Dialect::v0_3_21();
  CHECK(prepare_request(Value(), parse_or_fail("{}", "q"), bytes_encoder, config).ok());
}
