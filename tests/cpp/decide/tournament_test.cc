// predict_tournament (laya-spec-current §8) over a fake agent that records every request and picks
// the last label of each choice it is asked: the rounds' groups are the contiguous near-equal
// slices worked out by hand from the spec's formula, the final call gets the finalists, and
// "tournament" is appended to the final response's text as it was written.
#include "decide/tournament.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "decide/pyjson.h"
#include "upstream_fixture.h"

using laya::ErrorCode;
using laya::Result;
using laya::decide::dumps;
using laya::decide::predict_tournament;
using laya::decide::PredictFn;
using laya::decide::testing::parse_or_fail;
using laya::json::Value;

namespace {

// Answers every choice with its last label; records each call's questions as json.dumps text.
struct LastLabelAgent {
  std::vector<std::string> requests;

  PredictFn predict() {
    return [this](const Value&, const Value& questions) -> Result<std::string> {
      requests.push_back(dumps(questions, /*ensure_ascii=*/false));
      std::string answers;
      for (const auto& [qid, question] : questions.members()) {
        if (!answers.empty()) answers += ", ";
        const Value* criteria = question.is_object() ? question.find("criteria") : nullptr;
        std::string choice = "null";
        if (criteria != nullptr && criteria->is_array()) choice = dumps(criteria->items().back(), false);
        if (criteria != nullptr && criteria->is_object()) choice = dumps(Value::string(criteria->members().back().first), false);
        answers += "\"" + qid + "\": {\"type\": \"choice\", \"choice\": " + choice + "}";
      }
      // "0.50" is not how Python writes a float: it shows the text is passed through untouched.
      return "{\"model\": \"laya-rl-agent\", \"answers\": {" + answers + "}, \"usage\": {\"input_tokens\": 7, \"x\": 0.50}}";
    };
  }
};

// `"l<from>", ..., "l<to - 1>"` as json.dumps writes the list's items.
std::string label_list(int from, int to) {
  std::string out;
  for (int i = from; i < to; ++i) out += (i > from ? ", \"l" : "\"l") + std::to_string(i) + "\"";
  return out;
}

Value forty_labels() {
  return parse_or_fail("{\"q\": {\"type\": \"choice\", \"instructions\": \"Pick one\", \"criteria\": [" + label_list(0, 40) +
                           "], \"note\": \"kept\"}}",
                       "questions");
}

std::string error_of(const Value& questions, const Value& group_size) {
  LastLabelAgent agent;
  const Result<std::string> r = predict_tournament(Value::string("s"), questions, group_size, agent.predict());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kInvalidRequest);
  return r.error().message;
}

Value number(const char* text) { return Value::number(text); }

}  // namespace

TEST_CASE("forty labels in groups of sixteen play one round of three slices, 0:13, 13:26 and 26:40") {
  LastLabelAgent agent;
  const Result<std::string> r = predict_tournament(Value::string("s"), forty_labels(), number("16"), agent.predict());
  REQUIRE(r.ok());
  REQUIRE(agent.requests.size() == 2);
  auto group = [](int id, int from, int to) {
    return "\"" + std::to_string(id) + "\": {\"type\": \"choice\", \"instructions\": \"Pick one\", \"criteria\": [" +
           label_list(from, to) + "], \"note\": \"kept\"}";
  };
  CHECK(agent.requests[0] == "{" + group(0, 0, 13) + ", " + group(1, 13, 26) + ", " + group(2, 26, 40) + "}");
}

TEST_CASE("the final call asks the round winners and the response gains the tournament after its last member") {
  LastLabelAgent agent;
  const Result<std::string> r = predict_tournament(Value::string("s"), forty_labels(), number("16"), agent.predict());
  REQUIRE(r.ok());
  REQUIRE(agent.requests.size() == 2);
  CHECK(agent.requests[1] ==
        "{\"q\": {\"type\": \"choice\", \"instructions\": \"Pick one\", \"criteria\": [\"l12\", \"l25\", \"l39\"], "
        "\"note\": \"kept\"}}");
  CHECK(r.value() ==
        "{\"model\": \"laya-rl-agent\", \"answers\": {\"q\": {\"type\": \"choice\", \"choice\": \"l39\"}}, "
        "\"usage\": {\"input_tokens\": 7, \"x\": 0.50}, "
        "\"tournament\": {\"q\": {\"labels\": [\"l12\", \"l25\", \"l39\"], \"n\": 40, \"rounds\": 1}}}");
}

TEST_CASE("dict criteria stay dicts with their descriptions through every round and the final call") {
  // 5 labels in groups of 2: parts 3, slices 0:1, 1:3, 3:5 -> winners a, c, e; then parts 2,
  // slices 0:1, 1:3 -> winners a, e; 2 labels need no third round.
  const Value questions = parse_or_fail(
      R"({"other": {"type": "noul", "instructions": "Ok?"},
          "q": {"type": "choice", "instructions": "Which?", "criteria": {"a": "A", "b": "B", "c": "C", "d": "D", "e": "E"}},
          "small": {"type": "choice", "instructions": "Small?", "criteria": ["x", "y"]}})",
      "questions");
  LastLabelAgent agent;
  const Result<std::string> r = predict_tournament(Value::string("s"), questions, number("2"), agent.predict());
  REQUIRE(r.ok());
  REQUIRE(agent.requests.size() == 3);
  CHECK(agent.requests[0] ==
        "{\"0\": {\"type\": \"choice\", \"instructions\": \"Which?\", \"criteria\": {\"a\": \"A\"}}, "
        "\"1\": {\"type\": \"choice\", \"instructions\": \"Which?\", \"criteria\": {\"b\": \"B\", \"c\": \"C\"}}, "
        "\"2\": {\"type\": \"choice\", \"instructions\": \"Which?\", \"criteria\": {\"d\": \"D\", \"e\": \"E\"}}}");
  CHECK(agent.requests[1] ==
        "{\"0\": {\"type\": \"choice\", \"instructions\": \"Which?\", \"criteria\": {\"a\": \"A\"}}, "
        "\"1\": {\"type\": \"choice\", \"instructions\": \"Which?\", \"criteria\": {\"c\": \"C\", \"e\": \"E\"}}}");
  CHECK(agent.requests[2] ==
        "{\"other\": {\"type\": \"noul\", \"instructions\": \"Ok?\"}, "
        "\"q\": {\"type\": \"choice\", \"instructions\": \"Which?\", \"criteria\": {\"a\": \"A\", \"e\": \"E\"}}, "
        "\"small\": {\"type\": \"choice\", \"instructions\": \"Small?\", \"criteria\": [\"x\", \"y\"]}}");
  const std::string tail =
      "\"tournament\": {\"q\": {\"labels\": [\"a\", \"e\"], \"n\": 5, \"rounds\": 2}, "
      "\"small\": {\"labels\": [\"x\", \"y\"], \"n\": 2, \"rounds\": 0}}}";
  CHECK(r.value().substr(r.value().size() - tail.size()) == tail);
}

TEST_CASE("the groups of several choices share one call with ids counting on across questions") {
  // 3 labels -> slices 0:1, 1:3; 4 labels -> slices 0:2, 2:4.
  const Value questions = parse_or_fail(
      R"({"a": {"type": "choice", "instructions": "A?", "criteria": ["x", "y", "z"]},
          "b": {"type": "choice", "instructions": "B?", "criteria": [1, 2, 3.5, false]}})",
      "questions");
  LastLabelAgent agent;
  const Result<std::string> r = predict_tournament(Value::string("s"), questions, number("2"), agent.predict());
  REQUIRE(r.ok());
  REQUIRE(agent.requests.size() == 2);
  CHECK(agent.requests[0] ==
        "{\"0\": {\"type\": \"choice\", \"instructions\": \"A?\", \"criteria\": [\"x\"]}, "
        "\"1\": {\"type\": \"choice\", \"instructions\": \"A?\", \"criteria\": [\"y\", \"z\"]}, "
        "\"2\": {\"type\": \"choice\", \"instructions\": \"B?\", \"criteria\": [1, 2]}, "
        "\"3\": {\"type\": \"choice\", \"instructions\": \"B?\", \"criteria\": [3.5, false]}}");
  CHECK(r.value().find("\"tournament\": {\"a\": {\"labels\": [\"x\", \"z\"], \"n\": 3, \"rounds\": 1}, "
                       "\"b\": {\"labels\": [2, false], \"n\": 4, \"rounds\": 1}}}") != std::string::npos);
}

TEST_CASE("a request with no choice over the group size makes only the final call") {
  const Value questions = parse_or_fail(R"({"n": {"type": "noul", "instructions": "Ok?"}, "bad": 3})", "questions");
  LastLabelAgent agent;
  const Result<std::string> r = predict_tournament(Value::string("s"), questions, number("16"), agent.predict());
  REQUIRE(r.ok());
  REQUIRE(agent.requests.size() == 1);
  CHECK(agent.requests[0] == "{\"n\": {\"type\": \"noul\", \"instructions\": \"Ok?\"}, \"bad\": 3}");
  CHECK(r.value().find("\"x\": 0.50}, \"tournament\": {}}") != std::string::npos);
}

TEST_CASE("an error of the predictor is returned as it is") {
  const PredictFn failing = [](const Value&, const Value&) -> Result<std::string> {
    return laya::invalid_request("question '0': boom");
  };
  const Result<std::string> r = predict_tournament(Value::string("s"), forty_labels(), number("16"), failing);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "question '0': boom");
}

TEST_CASE("questions that are not a dict are refused with upstream's message, which has no suffix") {
  CHECK(error_of(parse_or_fail("[]", "q"), number("16")) == "questions must be a dict of question id -> definition");
}

TEST_CASE("a group size that is not an integer of at least 2 is refused with its repr") {
  const Value questions = forty_labels();
  CHECK(error_of(questions, number("1")) == "group_size must be an integer of at least 2, got 1");
  CHECK(error_of(questions, number("-3")) == "group_size must be an integer of at least 2, got -3");
  CHECK(error_of(questions, number("2.0")) == "group_size must be an integer of at least 2, got 2.0");
  CHECK(error_of(questions, Value::boolean(true)) == "group_size must be an integer of at least 2, got True");
  CHECK(error_of(questions, Value::string("16")) == "group_size must be an integer of at least 2, got '16'");
  CHECK(error_of(questions, Value()) == "group_size must be an integer of at least 2, got None");
}

TEST_CASE("a choice's criteria are checked even when it needs no round") {
  auto with = [](const std::string& criteria) {
    return parse_or_fail("{\"q\": {\"type\": \"choice\", \"instructions\": \"I\"" + criteria + "}}", "questions");
  };
  CHECK(error_of(with(""), number("16")) == "question 'q' is a choice but has no criteria");
  CHECK(error_of(with(", \"criteria\": \"abc\""), number("16")) == "choice criteria must be a dict or list, got str");
  CHECK(error_of(with(", \"criteria\": null"), number("16")) == "choice criteria must be a dict or list, got NoneType");
  CHECK(error_of(with(", \"criteria\": []"), number("16")) == "choice criteria must contain at least one option");
  CHECK(error_of(with(", \"criteria\": {}"), number("16")) == "choice criteria must contain at least one option");
  CHECK(error_of(with(", \"criteria\": [\"a\", \"a\"]"), number("16")) == "choice criteria label 'a' is duplicated");
  // Python's set holds 1, 1.0 and True as one element.
  CHECK(error_of(with(", \"criteria\": [1, true]"), number("16")) == "choice criteria label True is duplicated");
  CHECK(error_of(with(", \"criteria\": [1, 1.0]"), number("16")) == "choice criteria label 1.0 is duplicated");
}
