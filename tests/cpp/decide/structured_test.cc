// decide's schema planner and projection (laya-spec-current §10): the questions a schema becomes,
// every SchemaError message, $ref / allOf / anyOf unwrapping, and the typed values read back from
// responses written by hand, through a fake predictor that records what it is asked.
#include "decide/structured.h"

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "decide/pyjson.h"
#include "upstream_fixture.h"

using laya::ErrorCode;
using laya::Result;
using laya::decide::decide;
using laya::decide::decide_batch;
using laya::decide::DecisionPlan;
using laya::decide::dumps;
using laya::decide::plan_schema;
using laya::decide::PredictBatchFn;
using laya::decide::PredictFn;
using laya::decide::testing::parse_or_fail;
using laya::json::Value;

namespace {

Value parse(const std::string& text) { return parse_or_fail(text, "test json"); }

// The planned questions as json.dumps writes them.
std::string planned(const std::string& schema) {
  const Result<DecisionPlan> plan = plan_schema(parse(schema));
  REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? "" : plan.error().message));
  return dumps(plan.value().questions, /*ensure_ascii=*/false);
}

std::string schema_error(const std::string& schema) {
  const Result<DecisionPlan> plan = plan_schema(parse(schema));
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.error().code == ErrorCode::kInvalidRequest);
  return plan.error().message;
}

// A schema with one property `p`.
std::string one(const std::string& property) { return R"({"properties": {"p": )" + property + "}}"; }

// Answers every call with `response`, recording the questions it was asked.
struct FixedAgent {
  explicit FixedAgent(std::string text) : response(std::move(text)) {}

  std::string response;
  std::vector<std::string> requests;

  PredictFn predict() {
    return [this](const Value&, const Value& questions) -> Result<std::string> {
      requests.push_back(dumps(questions, false));
      return response;
    };
  }
};

std::string response_with(const std::string& answers) {
  return R"({"model": "laya-rl-agent", "answers": {)" + answers + R"(}, "usage": {"input_tokens": 12, "output_tokens": 0}})";
}

std::string decided(const std::string& schema, const std::string& answers, const Value& min_confidence = Value()) {
  FixedAgent agent{response_with(answers)};
  const Result<std::string> r = decide(Value::string("s"), parse(schema), Value(), false, min_confidence, agent.predict());
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return r.value();
}

}  // namespace

TEST_CASE("each property type becomes its question in property order with type, instructions, criteria") {
  CHECK(planned(R"({"type": "object", "properties": {
          "colour": {"enum": ["red", "green"], "description": "The colour"},
          "urgent": {"type": "boolean"},
          "stars": {"type": "integer", "minimum": 1, "maximum": 3},
          "flag": {"enum": [true, false]},
          "kind": {"const": "x"},
          "level": {"type": "number", "minimum": 0, "maximum": 1, "description": "Level"}}})") ==
        R"({"colour": {"type": "choice", "instructions": "The colour", "criteria": {"red": null, "green": null}}, )"
        R"("urgent": {"type": "noul", "instructions": "Is `urgent` true?"}, )"
        R"("stars": {"type": "score", "instructions": "Score `stars` from 1 to 3", "criteria": ["1", "2", "3"]}, )"
        R"("flag": {"type": "noul", "instructions": "Is `flag` true?"}, )"
        R"("kind": {"type": "choice", "instructions": "What is `kind`?", "criteria": {"x": null}}, )"
        R"("level": {"type": "score", "instructions": "Level", "criteria": ["0", "1"]}})");
}

TEST_CASE("enum labels are Python's str of each value and null is the label null") {
  CHECK(planned(one(R"({"enum": [true, 1.0, null, 2, "s", 1e-05], "description": ""})")) ==
        R"({"p": {"type": "choice", "instructions": "What is `p`?", )"
        R"("criteria": {"True": null, "1.0": null, "null": null, "2": null, "s": null, "1e-05": null}}})");
}

TEST_CASE("a type list with null keeps its one other type") {
  CHECK(planned(one(R"({"type": ["boolean", "null"]})")) == R"({"p": {"type": "noul", "instructions": "Is `p` true?"}})");
}

TEST_CASE("a $ref takes the definition's keys without its description and lays the property's keys over them") {
  CHECK(planned(R"({"$defs": {"Colour": {"enum": ["r", "g"], "description": "from the definition"}},
                   "properties": {"a": {"$ref": "#/$defs/Colour"},
                                  "b": {"$ref": "#/$defs/Colour", "description": "mine"}}})") ==
        R"({"a": {"type": "choice", "instructions": "What is `a`?", "criteria": {"r": null, "g": null}}, )"
        R"("b": {"type": "choice", "instructions": "mine", "criteria": {"r": null, "g": null}}})");
}

TEST_CASE("a $ref into definitions resolves, and refs are followed until none is left") {
  CHECK(planned(R"({"definitions": {"A": {"$ref": "#/definitions/B"}, "B": {"type": "boolean"}},
                   "properties": {"p": {"$ref": "#/definitions/A"}}})") ==
        R"({"p": {"type": "noul", "instructions": "Is `p` true?"}})");
}

TEST_CASE("a one-element allOf is unwrapped with the outer keys laid over it") {
  CHECK(planned(R"({"$defs": {"Colour": {"enum": ["r", "g"]}},
                   "properties": {"p": {"allOf": [{"$ref": "#/$defs/Colour"}], "description": "outer"}}})") ==
        R"({"p": {"type": "choice", "instructions": "outer", "criteria": {"r": null, "g": null}}})");
}

TEST_CASE("an Optional union plans its one non-null branch, which takes the outer description") {
  CHECK(planned(one(R"({"anyOf": [{"type": "integer", "minimum": 0, "maximum": 2}, {"type": "null"}], "description": "How many"})")) ==
        R"({"p": {"type": "score", "instructions": "How many", "criteria": ["0", "1", "2"]}})");
  CHECK(planned(one(R"({"oneOf": [{"type": "null"}, {"type": "boolean", "description": "own"}], "description": "outer"})")) ==
        R"({"p": {"type": "noul", "instructions": "own"}})");
}

TEST_CASE("top-level problems are refused with upstream's messages") {
  CHECK(schema_error("[]") == "expected a JSON schema object, got list");
  CHECK(schema_error(R"("s")") == "expected a JSON schema object, got str");
  CHECK(schema_error(R"({"type": "array", "properties": {"a": {"type": "boolean"}}})") ==
        "the top level must be an object with 'properties'");
  CHECK(schema_error(R"({"type": "object"})") == "the top level must be an object with 'properties'");
  CHECK(schema_error(R"({"properties": {}})") == "'properties' must be a non-empty object");
  CHECK(schema_error(R"({"properties": [1]})") == "'properties' must be a non-empty object");
  std::string many = R"({"properties": {)";
  for (int i = 0; i < 33; ++i) many += (i ? ", \"p" : "\"p") + std::to_string(i) + R"(": {"type": "boolean"})";
  CHECK(schema_error(many + "}}") == "33 properties exceeds MAX_PROPERTIES=32");
}

TEST_CASE("property problems name the property's path") {
  CHECK(schema_error(one("3")) == "properties.p: property must be an object, got int");
  CHECK(schema_error(one(R"({"$ref": "#/$defs/Missing"})")) ==
        "properties.p: $ref '#/$defs/Missing' does not resolve to an entry of this schema's '$defs' or 'definitions'");
  CHECK(schema_error(one(R"({"$ref": "http://example.com/s.json"})")) ==
        "properties.p: $ref 'http://example.com/s.json' does not resolve to an entry of this schema's '$defs' or 'definitions'");
  CHECK(schema_error(R"({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}},
                        "properties": {"p": {"$ref": "#/$defs/A"}}})") ==
        "properties.p: $ref '#/$defs/A' is recursive; flatten the schema");
  CHECK(schema_error(one(R"({"anyOf": [{"type": "integer"}, {"type": "string"}]})")) ==
        "properties.p: only 'Optional[...]' unions (one non-null branch) are supported, got 2");
  CHECK(schema_error(one(R"({"oneOf": [{"type": "null"}]})")) ==
        "properties.p: only 'Optional[...]' unions (one non-null branch) are supported, got 0");
  std::string options = "[0";
  for (int i = 1; i < 33; ++i) options += ", " + std::to_string(i);
  CHECK(schema_error(one(R"({"enum": )" + options + "]}")) == "properties.p: 33 options exceeds MAX_OPTIONS=32");
  CHECK(schema_error(one(R"({"enum": []})")) == "properties.p: 'enum' must not be empty");
  CHECK(schema_error(one(R"({"enum": [1, "1"]})")) == "properties.p: enum values produce duplicate choice labels");
  CHECK(schema_error(one(R"({"enum": [null, "null"]})")) == "properties.p: enum values produce duplicate choice labels");
  CHECK(schema_error(one(R"({"type": ["integer", "string", "null"]})")) ==
        "properties.p: 'type' has multiple non-null types; unions are not supported");
  CHECK(schema_error(one(R"({"type": "string"})")) ==
        "properties.p: a free string cannot be a fixed option set; use 'enum' or a boolean");
  CHECK(schema_error(one(R"({"type": "integer", "minimum": 1})")) ==
        "properties.p: a numeric field needs integer 'minimum' and 'maximum' to become a score");
  CHECK(schema_error(one(R"({"type": "number", "minimum": 0.5, "maximum": 3})")) ==
        "properties.p: a numeric field needs integer 'minimum' and 'maximum' to become a score");
  CHECK(schema_error(one(R"({"type": "integer", "minimum": 5, "maximum": 4})")) ==
        "properties.p: 'maximum' 4 is below 'minimum' 5");
  CHECK(schema_error(one(R"({"type": "integer", "minimum": 0, "maximum": 10})")) ==
        "properties.p: 11 levels exceeds MAX_SCORE_LEVELS=10; narrow the range or use an enum");
  CHECK(schema_error(one(R"({"type": "array"})")) == "properties.p: arrays are not supported; ask one field per element");
  CHECK(schema_error(one(R"({"type": "object"})")) == "properties.p: nested objects are not supported; flatten the schema");
  CHECK(schema_error(one(R"({"type": "null", "title": "T"})")) == "properties.p: unsupported schema {'type': 'null', 'title': 'T'}");
  CHECK(schema_error(one("{}")) == "properties.p: unsupported schema {}");
}

TEST_CASE("decide sends the planned questions and projects a noul at 0.5 and above to true") {
  FixedAgent agent{response_with(R"("a": {"type": "noul", "noul": 0.5, "confidence": 0.0}, "b": {"type": "noul", "noul": 0.4999, "confidence": 0.0})")};
  const Result<std::string> r = decide(Value::string("s"),
                                       parse(R"({"properties": {"a": {"type": "boolean"}, "b": {"enum": [false, true]}}})"),
                                       Value(), false, Value(), agent.predict());
  REQUIRE(r.ok());
  CHECK(agent.requests == std::vector<std::string>{
                              R"({"a": {"type": "noul", "instructions": "Is `a` true?"}, "b": {"type": "noul", "instructions": "Is `b` true?"}})"});
  CHECK(r.value() == R"({"a": true, "b": false})");
}

TEST_CASE("a score is the minimum plus the first most probable level") {
  CHECK(decided(one(R"({"type": "integer", "minimum": 3, "maximum": 5})"),
                R"("p": {"type": "score", "score": 1.2, "probabilities": {"0": 0.2, "1": 0.4, "2": 0.4}})") == R"({"p": 4})");
}

TEST_CASE("a score without probabilities is the minimum plus its rounded score, halves to even") {
  const std::string schema = one(R"({"type": "integer", "minimum": 3, "maximum": 6})");
  CHECK(decided(schema, R"("p": {"type": "score", "score": 1.5})") == R"({"p": 5})");
  CHECK(decided(schema, R"("p": {"type": "score", "score": 2.5})") == R"({"p": 5})");
  CHECK(decided(schema, R"("p": {"type": "score", "score": 0.4})") == R"({"p": 3})");
}

TEST_CASE("a choice is the enum value whose label it is, or else the label itself") {
  const std::string schema = one(R"({"enum": [1.0, "b", null, true]})");
  CHECK(decided(schema, R"("p": {"type": "choice", "choice": "1.0"})") == R"({"p": 1.0})");
  CHECK(decided(schema, R"("p": {"type": "choice", "choice": "null"})") == R"({"p": null})");
  CHECK(decided(schema, R"("p": {"type": "choice", "choice": "True"})") == R"({"p": true})");
  CHECK(decided(schema, R"("p": {"type": "choice", "choice": "zzz"})") == R"({"p": "zzz"})");
}

TEST_CASE("a low-confidence answer gives null and a missing answer leaves its key out") {
  CHECK(decided(R"({"properties": {"a": {"type": "boolean"}, "b": {"type": "boolean"}}})",
                R"("a": {"type": "noul", "noul": 0.9, "confidence": 0.8, "low_confidence": true})") == R"({"a": null})");
}

TEST_CASE("min_confidence is applied again to the response, so an answer under it becomes null") {
  // answer_confidence 0.55 < 0.6 abstains; 0.6 passes (the rounded value is compared).
  CHECK(decided(R"({"properties": {"a": {"type": "boolean"}, "b": {"type": "boolean"}}})",
                R"("a": {"type": "noul", "noul": 0.55, "confidence": 0.1, "answer_confidence": 0.55}, )"
                R"("b": {"type": "noul", "noul": 0.6, "confidence": 0.1, "answer_confidence": 0.6})",
                Value::number("0.6")) == R"({"a": null, "b": true})");
}

TEST_CASE("return_details writes the DecisionResult with the gated answers, usage and routing") {
  FixedAgent agent{response_with(
      R"("a": {"type": "noul", "noul": 0.25, "confidence": 0.5, "answer_confidence": 0.75}, )"
      R"("c": {"type": "choice", "choice": "x", "probabilities": {"x": 0.7, "y": 0.3}, "confidence": 1, "answer_confidence": true})")};
  const Result<std::string> r =
      decide(Value::string("s"), parse(R"({"properties": {"a": {"type": "boolean"}, "c": {"enum": ["x", "y"]}}})"), Value(),
             true, Value::number("0.5"), agent.predict());
  REQUIRE(r.ok());
  CHECK(r.value() ==
        R"({"values": {"a": false, "c": "x"}, )"
        R"("confidence": {"a": 0.5, "c": 1.0}, )"
        R"("probabilities": {"a": {"false": 0.75, "true": 0.25}, "c": {"x": 0.7, "y": 0.3}}, )"
        R"("answers": {"a": {"type": "noul", "noul": 0.25, "confidence": 0.5, "answer_confidence": 0.75, "abstention": "passed", "abstention_threshold": 0.5}, )"
        R"("c": {"type": "choice", "choice": "x", "probabilities": {"x": 0.7, "y": 0.3}, "confidence": 1, "answer_confidence": true, "abstention": "passed", "abstention_threshold": 0.5}}, )"
        R"("usage": {"input_tokens": 12, "output_tokens": 0}, "routing": null, "answer_confidence": {"a": 0.75, "c": null}})");
}

TEST_CASE("in questions mode the questions go as they are and the values are the raw answers") {
  FixedAgent agent{response_with(R"("q": {"type": "noul", "noul": 0.125})")};
  const Value questions = parse(R"({"q": {"type": "noul", "instructions": "Ok?"}})");
  const Result<std::string> r = decide(Value::string("s"), Value(), questions, false, Value(), agent.predict());
  REQUIRE(r.ok());
  CHECK(agent.requests == std::vector<std::string>{R"({"q": {"type": "noul", "instructions": "Ok?"}})"});
  CHECK(r.value() == R"({"q": {"type": "noul", "noul": 0.125}})");
}

TEST_CASE("decide needs exactly one of schema and questions, and a valid min_confidence") {
  FixedAgent agent{response_with("")};
  const Value schema = parse(one(R"({"type": "boolean"})"));
  const Value questions = parse(R"({"q": {"type": "noul", "instructions": "Ok?"}})");
  auto error = [&](const Value& s, const Value& q, const Value& min_confidence) {
    const Result<std::string> r = decide(Value::string("s"), s, q, false, min_confidence, agent.predict());
    REQUIRE_FALSE(r.ok());
    return r.error().message;
  };
  CHECK(error(Value(), Value(), Value()) == "pass exactly one of schema= or questions=");
  CHECK(error(schema, questions, Value()) == "pass exactly one of schema= or questions=");
  CHECK(error(schema, Value(), Value::number("2")) == "min_confidence must be a float in [0.0, 1.0], got 2");
  CHECK(agent.requests.empty());
}

TEST_CASE("decide_batch makes one batch call and returns one projection per state in order") {
  std::vector<size_t> state_counts;
  const PredictBatchFn batch = [&](const std::vector<Value>& states, const Value&) -> Result<std::vector<std::string>> {
    state_counts.push_back(states.size());
    return std::vector<std::string>{response_with(R"("p": {"type": "noul", "noul": 0.9})"),
                                    response_with(R"("p": {"type": "noul", "noul": 0.1})")};
  };
  const Result<std::string> r = decide_batch(parse(R"(["one", "two"])"), parse(one(R"({"type": "boolean"})")), Value(),
                                             false, Value(), batch);
  REQUIRE(r.ok());
  CHECK(state_counts == std::vector<size_t>{2});
  CHECK(r.value() == R"([{"p": true}, {"p": false}])");
}

TEST_CASE("decide_batch refuses states that are not a list with the Python type name") {
  const PredictBatchFn batch = [](const std::vector<Value>&, const Value&) -> Result<std::vector<std::string>> {
    return std::vector<std::string>{};
  };
  const Value schema = parse(one(R"({"type": "boolean"})"));
  const Result<std::string> text = decide_batch(Value::string("s"), schema, Value(), false, Value(), batch);
  REQUIRE_FALSE(text.ok());
  CHECK(text.error().message == "states must be a sequence of states, not str");
  const Result<std::string> dict = decide_batch(parse("{}"), schema, Value(), false, Value(), batch);
  REQUIRE_FALSE(dict.ok());
  CHECK(dict.error().message == "states must be a sequence of states, not dict");
}
