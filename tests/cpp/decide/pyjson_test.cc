#include "decide/pyjson.h"

#include <doctest/doctest.h>

#include "upstream_fixture.h"

using laya::json::Value;
using laya::decide::dumps;
using laya::decide::json_key;
using laya::decide::render_criterion;
using laya::decide::testing::parse_or_fail;
using laya::decide::testing::read_lines;
using laya::decide::testing::upstream_dir;

TEST_CASE("dumps reproduces every upstream fixture line, which Python wrote with json.dumps") {
  // Both files are json.dumps(record, ensure_ascii=False) output (checked with CPython): numbers,
  // escapes, non-ASCII text and separators must all come back byte for byte.
  int lines = 0;
  for (const char* file : {"/cases.jsonl", "/recorded.jsonl"}) {
    for (const std::string& line : read_lines(upstream_dir() + file)) {
      CHECK(dumps(parse_or_fail(line, file), /*ensure_ascii=*/false) == line);
      ++lines;
    }
  }
  CHECK(lines == 268);
}

TEST_CASE("dumps spells numbers as Python prints what json.loads read") {
  const Value v = parse_or_fail(
      "[1, -0, 1.0, 1e5, 1E-5, 0.0001, 1e16, 12345678901234567890, 1.5e300, -0.0, 1e400, -1e400, 2.50]", "t");
  CHECK(dumps(v, false) ==
        "[1, 0, 1.0, 100000.0, 1e-05, 0.0001, 1e+16, 12345678901234567890, 1.5e+300, -0.0, Infinity, "
        "-Infinity, 2.5]");
  laya::json::ParseOptions nonfinite;
  nonfinite.allow_nonfinite = true;
  CHECK(dumps(laya::json::parse("[NaN, -Infinity]", "t", nonfinite).value(), false) == "[NaN, -Infinity]");
}

TEST_CASE("dumps keeps Python's dict semantics, separators and escaping") {
  const Value v = parse_or_fail(R"({"b": 1, "a": {"x": [true, null]}, "b": "caf\u00e9\u007f\n"})", "t");
  CHECK(dumps(v, false) == "{\"b\": \"caf\xc3\xa9\x7f\\n\", \"a\": {\"x\": [true, null]}}");
  CHECK(dumps(v, true) == "{\"b\": \"caf\\u00e9\\u007f\\n\", \"a\": {\"x\": [true, null]}}");
  CHECK(dumps(parse_or_fail(R"("\ud83d\ude00")", "t"), true) == "\"\\ud83d\\ude00\"");
  CHECK(dumps(parse_or_fail("{}", "t"), false) == "{}");
  CHECK(dumps(parse_or_fail("[]", "t"), false) == "[]");
}

TEST_CASE("json_key writes non-str dict keys as json.dumps converts them") {
  CHECK(json_key(Value()) == "null");
  CHECK(json_key(Value::boolean(false)) == "false");
  CHECK(json_key(Value::number("-0")) == "0");
  CHECK(json_key(Value::number("1e1")) == "10.0");
  CHECK(json_key(Value::number("1e999")) == "Infinity");
  CHECK(json_key(Value::string("label")) == "label");
}

TEST_CASE("render_criterion passes strings through and dumps everything else") {
  CHECK(render_criterion(Value::string("caf\xc3\xa9")) == "caf\xc3\xa9");
  CHECK(render_criterion(Value::number("0")) == "0");
  CHECK(render_criterion(Value::boolean(true)) == "true");
  CHECK(render_criterion(Value()) == "null");
  CHECK(render_criterion(parse_or_fail(R"({"x":[1,2.5],"n":"\u00e9"})", "t")) == "{\"x\": [1, 2.5], \"n\": \"\xc3\xa9\"}");
}

TEST_CASE("dict_members merges repeated keys like json.loads, in linear time") {
  const Value v = parse_or_fail(R"({"a": 1, "b": 2, "a": 3, "c": 4, "b": 5})", "t");
  const auto members = laya::decide::dict_members(v);
  REQUIRE(members.size() == 3);
  CHECK(members[0]->first == "a");
  CHECK(members[0]->second.number_text() == "3");
  CHECK(members[1]->second.number_text() == "5");
  CHECK(members[2]->first == "c");
  // A large state object: quadratic merging would take minutes here.
  std::vector<laya::json::Member> many;
  for (int i = 0; i < 200000; ++i) many.emplace_back("k" + std::to_string(i % 150000), Value::number(std::to_string(i)));
  const Value big = Value::object(std::move(many));
  const auto merged = laya::decide::dict_members(big);
  REQUIRE(merged.size() == 150000);
  CHECK(merged[0]->second.number_text() == "150000");
  CHECK(merged[149999]->second.number_text() == "149999");
}
