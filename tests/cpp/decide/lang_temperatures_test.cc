#include "decide/lang_temperatures.h"

#include <doctest/doctest.h>

#include "upstream_fixture.h"

using laya::decide::Calibration;
using laya::decide::LangTemperatures;
using laya::decide::primary_subtag;
using laya::decide::QType;
using laya::decide::resolve_lang_temperatures;
using laya::decide::testing::parse_or_fail;

namespace {

Calibration checkpoint() {
  Calibration c;
  c.by_type = {1.5, 2.0, 2.5};
  c.by_options = {{"choice:3-5", 3.0}};
  return c;
}

std::string message(const std::string& json) {
  auto r = resolve_lang_temperatures(parse_or_fail(json, "lang_temperatures"), checkpoint());
  if (r.ok()) return "";
  CHECK(r.error().code == laya::ErrorCode::kInvalidRequest);
  return r.error().message;
}

LangTemperatures resolved(const std::string& json) {
  auto r = resolve_lang_temperatures(parse_or_fail(json, "lang_temperatures"), checkpoint());
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return std::move(r).value();
}

}  // namespace

TEST_CASE("a language is named by its lowercased primary subtag") {
  CHECK(primary_subtag("en-GB") == "en");
  CHECK(primary_subtag("PT_br") == "pt");
  CHECK(primary_subtag(" de ") == "de");
  CHECK(primary_subtag("") == "");
}

// Expected texts are laya-spec-current §13, item 1's format strings filled in by hand.
TEST_CASE("malformed overrides are refused with upstream's messages") {
  CHECK(message(R"({"de": 1.5})") == "Language override 'de' must be a mapping, got float");
  CHECK(message(R"({"de": {"temperature": [1, 2]}})") ==
        "Language override 'de' temperature must be a list of 3 floats, got [1, 2]");
  CHECK(message(R"({"de": {"temperature": "1"}})") ==
        "Language override 'de' temperature must be a list of 3 floats, got '1'");
  CHECK(message(R"({"de": {"temperature_by_options": [1]}})") ==
        "Language override 'de' temperature_by_options must be a mapping of bucket -> float, got list");
  CHECK(message(R"({"de": null, "fr": {"temperature": null, "temperature_by_options": null}})") == "");
}

TEST_CASE("an override replaces the checkpoint's tables, clamped, a bool giving 1.0") {
  const LangTemperatures t =
      resolved(R"({"DE-at": {"temperature": [0.1, true, 9], "temperature_by_options": {"noul:2": 0.75}}})");
  const Calibration* de = t.find("de_CH");
  REQUIRE(de != nullptr);
  CHECK(de->temperature(QType::kChoice, 2) == 0.5);
  CHECK(de->temperature(QType::kScore, 3) == 1.0);
  CHECK(de->temperature(QType::kNoul, 2) == 0.75);
  // The checkpoint's choice:3-5 entry is not carried over.
  CHECK(de->temperature(QType::kChoice, 4) == 0.5);
  CHECK(t.find("fr") == nullptr);
  CHECK(t.find("") == nullptr);
}

TEST_CASE("a null entry or a null temperature inherits the checkpoint's temperatures") {
  const LangTemperatures t = resolved(R"({"fr": null, "es": {"temperature": null}})");
  CHECK(t.find("fr")->temperature(QType::kChoice, 4) == 3.0);
  CHECK(t.find("fr")->temperature(QType::kNoul, 2) == 2.5);
  CHECK(t.find("es")->temperature(QType::kScore, 4) == 2.0);
  CHECK(t.find("es")->temperature(QType::kChoice, 4) == 1.5);
}
