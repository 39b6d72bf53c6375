#include "decide/pyfloat.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>

#include "upstream_fixture.h"

using laya::decide::float_json;
using laya::decide::float_repr;
using laya::decide::python_parse_float;
using laya::decide::python_round;
using laya::decide::testing::parse_or_fail;
using laya::decide::testing::read_lines;

namespace {
const std::string kData = std::string(LAYA_TEST_DATA_DIR) + "/decide/";
}

TEST_CASE("float_repr spells values as CPython's repr does, by the documented rules") {
  CHECK(float_repr(1.0) == "1.0");
  CHECK(float_repr(0.0001) == "0.0001");
  CHECK(float_repr(1e-05) == "1e-05");
  CHECK(float_repr(0.00012) == "0.00012");
  CHECK(float_repr(1e16) == "1e+16");
  CHECK(float_repr(1234567890123456.0) == "1234567890123456.0");
  CHECK(float_repr(1.5e300) == "1.5e+300");
  CHECK(float_repr(-0.0) == "-0.0");
  CHECK(float_repr(100000.0) == "100000.0");
  CHECK(float_repr(0.1) == "0.1");
  CHECK(float_repr(5e-324) == "5e-324");
  CHECK(float_repr(INFINITY) == "inf");
  CHECK(float_json(INFINITY) == "Infinity");
  CHECK(float_json(-INFINITY) == "-Infinity");
  CHECK(float_json(NAN) == "NaN");
}

TEST_CASE("float_repr, float_json and python_round agree with CPython on the reference table") {
  // tests/data/decide/python_floats.jsonl: written by scripts/decide_reference_tables.py (CPython).
  int rows = 0, mismatches = 0;
  for (const std::string& line : read_lines(kData + "python_floats.jsonl")) {
    const auto row = parse_or_fail(line, "python_floats.jsonl");
    const double x = std::strtod(row.find("text")->as_string().c_str(), nullptr);
    const bool ok = float_repr(x) == row.find("repr")->as_string() &&
                    float_json(x) == row.find("json")->as_string() &&
                    float_repr(python_round(x, 4)) == row.find("round4")->as_string();
    if (!ok && ++mismatches <= 10) {
      MESSAGE(row.find("text")->as_string() << ": repr " << float_repr(x) << " want "
                                            << row.find("repr")->as_string() << ", round " << float_repr(python_round(x, 4))
                                            << " want " << row.find("round4")->as_string());
    }
    ++rows;
  }
  CHECK(rows > 4000);
  CHECK(mismatches == 0);
}

TEST_CASE("python_round rounds the exact binary value and breaks exact ties to even") {
  CHECK(python_round(0.03125, 4) == 0.0312);  // 1/32: an exact tie, even digit kept
  CHECK(python_round(0.09375, 4) == 0.0938);
  CHECK(python_round(0.15625, 4) == 0.1562);
  CHECK(python_round(0.21875, 4) == 0.2188);
  CHECK(python_round(0.25, 1) == 0.2);
  CHECK(python_round(2.675, 2) == 2.67);  // 2.675 is 2.67499999... in binary
  CHECK(std::signbit(python_round(-0.00001, 4)));
  int rows = 0, mismatches = 0;
  for (const std::string& line : read_lines(kData + "python_rounds.jsonl")) {
    const auto row = parse_or_fail(line, "python_rounds.jsonl");
    const double x = std::strtod(row.find("x")->as_string().c_str(), nullptr);
    if (float_repr(python_round(x, 4)) != row.find("round4")->as_string() && ++mismatches <= 10) {
      MESSAGE(row.find("x")->as_string() << " -> " << float_repr(python_round(x, 4)));
    }
    ++rows;
  }
  CHECK(rows > 10000);
  CHECK(mismatches == 0);
}

TEST_CASE("python_parse_float accepts what Python's float() accepts for a str") {
  double x = 0;
  CHECK((python_parse_float(" 1.5 ", x) && x == 1.5));
  CHECK((python_parse_float("1_000.5", x) && x == 1000.5));
  CHECK((python_parse_float("-Infinity", x) && std::isinf(x) && x < 0));
  CHECK((python_parse_float("nan", x) && std::isnan(x)));
  CHECK((python_parse_float(".5e1", x) && x == 5.0));
  CHECK((python_parse_float("5.", x) && x == 5.0));
  for (const char* bad : {"", "abc", "1__0", "_1", "1_", "1e", "0x10", "1.5.2", "--1", "in f"}) {
    CHECK_MESSAGE(!python_parse_float(bad, x), bad);
  }
}
