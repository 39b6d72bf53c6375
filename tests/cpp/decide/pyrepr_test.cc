#include "decide/pyrepr.h"

#include <doctest/doctest.h>

#include "upstream_fixture.h"

using laya::json::Value;
using laya::decide::python_key_equal;
using laya::decide::python_repr;
using laya::decide::python_str;
using laya::decide::python_str_repr;
using laya::decide::python_type_name;
using laya::decide::testing::parse_or_fail;
using laya::decide::testing::read_lines;

TEST_CASE("python_str_repr matches CPython's repr on the reference strings") {
  // tests/data/decide/python_str_reprs.jsonl: written by scripts/decide_reference_tables.py.
  int rows = 0, mismatches = 0;
  for (const std::string& line : read_lines(std::string(LAYA_TEST_DATA_DIR) + "/decide/python_str_reprs.jsonl")) {
    const auto row = parse_or_fail(line, "python_str_reprs.jsonl");
    const std::string got = python_str_repr(row.find("s")->as_string());
    if (got != row.find("repr")->as_string() && ++mismatches <= 10) {
      MESSAGE(line << " got " << got);
    }
    ++rows;
  }
  CHECK(rows > 300);
  CHECK(mismatches == 0);
}

TEST_CASE("python_repr prints json.loads values as Python prints them") {
  CHECK(python_repr(parse_or_fail(R"({"a": [1, 2.50, true, null], "b": "it's", "a": -0})", "t")) ==
        R"({'a': 0, 'b': "it's"})");
  CHECK(python_repr(parse_or_fail("[1e400, 1E5, -0.0, 12345678901234567890]", "t")) ==
        "[inf, 100000.0, -0.0, 12345678901234567890]");
  CHECK(python_str(Value::string("x'y")) == "x'y");
  CHECK(python_str(Value()) == "None");
  CHECK(python_str(Value::boolean(true)) == "True");
  CHECK(python_str(Value::number("1.50")) == "1.5");
  CHECK(std::string(python_type_name(Value::number("1"))) == "int");
  CHECK(std::string(python_type_name(Value::number("1.0"))) == "float");
  CHECK(std::string(python_type_name(Value())) == "NoneType");
  CHECK(std::string(python_type_name(parse_or_fail("[]", "t"))) == "list");
  CHECK(std::string(python_type_name(parse_or_fail("{}", "t"))) == "dict");
}

TEST_CASE("python_key_equal follows Python's dict key equality for scalars") {
  const auto n = [](const char* text) { return Value::number(text); };
  CHECK(python_key_equal(n("1"), n("1.0")));
  CHECK(python_key_equal(n("1"), Value::boolean(true)));
  CHECK(python_key_equal(n("-0"), Value::boolean(false)));
  CHECK(python_key_equal(n("0.0"), n("-0.0")));
  CHECK(python_key_equal(n("1e2"), n("100")));
  CHECK(python_key_equal(n("NaN"), n("NaN")));
  CHECK(python_key_equal(Value(), Value()));
  CHECK(python_key_equal(Value::string("a"), Value::string("a")));
  CHECK_FALSE(python_key_equal(Value::string("1"), n("1")));
  CHECK_FALSE(python_key_equal(n("1.5"), n("1")));
  CHECK_FALSE(python_key_equal(Value(), Value::boolean(false)));
  // 2^53 + 1 is not a double: the int and the float 9007199254740992.0 differ, as in Python.
  CHECK_FALSE(python_key_equal(n("9007199254740993"), n("9007199254740992.0")));
  CHECK(python_key_equal(n("9007199254740992"), n("9007199254740992.0")));
  CHECK(python_key_equal(n("100000000000000000000"), n("1e20")));
}
