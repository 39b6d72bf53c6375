#include "util/json.h"

#include <doctest/doctest.h>

#include <cmath>

using laya::json::parse;

TEST_CASE("objects keep their members in file order, duplicates included") {
  auto v = parse(R"({"b": 1, "a": 2, "b": 3})", "test");
  REQUIRE(v.ok());
  const auto& m = v.value().members();
  REQUIRE(m.size() == 3);
  CHECK(m[0].first == "b");
  CHECK(m[1].first == "a");
  CHECK(v.value().find("b")->number_text() == "3");
  auto merged = v.value().python_dict_members();
  REQUIRE(merged.size() == 2);
  CHECK(merged[0].first == "b");
  CHECK(merged[0].second.number_text() == "3");
}

TEST_CASE("numbers keep the text they were written with") {
  auto v = parse("[1, 1.0, -0.0, 1e-05, 12345678901234567890]", "test");
  REQUIRE(v.ok());
  const auto& items = v.value().items();
  CHECK(items[0].is_integer());
  CHECK_FALSE(items[1].is_integer());
  CHECK(items[2].number_text() == "-0.0");
  CHECK(items[3].as_double() == 1e-05);
  CHECK(items[4].number_text() == "12345678901234567890");
  CHECK_FALSE(items[4].as_int64().has_value());
}

TEST_CASE("escapes decode to UTF-8, surrogate pairs included") {
  auto v = parse(R"("a\n\u00e9\ud83d\ude00\/")", "test");
  REQUIRE(v.ok());
  CHECK(v.value().as_string() == "a\n\xc3\xa9\xf0\x9f\x98\x80/");
}

TEST_CASE("malformed documents are rejected with the offset and the reason") {
  for (const char* bad : {"", "{", "[1,]", "{\"a\" 1}", "\"\\ud800\"", "01", "1.", "tru", "\"\x01\"",
                          "\"\xff\"", "[1] 2", "NaN"}) {
    auto v = parse(bad, "doc.json");
    CHECK_MESSAGE(!v.ok(), bad);
    if (!v.ok()) CHECK(v.error().message.rfind("doc.json: invalid JSON at byte ", 0) == 0);
  }
}

TEST_CASE("Python's non-finite literals are read only when allowed") {
  laya::json::ParseOptions options;
  options.allow_nonfinite = true;
  auto v = parse("[NaN, Infinity, -Infinity]", "test", options);
  REQUIRE(v.ok());
  CHECK(v.value().items()[2].as_double() < 0);
  CHECK(std::isnan(v.value().items()[0].as_double()));
}

TEST_CASE("nesting deeper than the limit is an error, not a stack overflow") {
  std::string deep(100000, '[');
  auto v = parse(deep, "test");
  REQUIRE_FALSE(v.ok());
  CHECK(v.error().message.find("nested deeper than 256 levels") != std::string::npos);
}

TEST_CASE("strings are quoted as Python's json.dumps quotes them") {
  std::string out;
  laya::json::append_quoted(out, "\"\\\n\x01\x7f\xc3\xa9\xf0\x9f\x98\x80", true);
  CHECK(out == "\"\\\"\\\\\\n\\u0001\\u007f\\u00e9\\ud83d\\ude00\"");
  out.clear();
  laya::json::append_quoted(out, "\x7f\xc3\xa9", false);
  CHECK(out == "\"\x7f\xc3\xa9\"");
}
