#include "decide/request_options.h"

#include <doctest/doctest.h>

using laya::decide::parse_request_options;
using laya::decide::RequestOptions;
using laya::decide::TruncationUsage;

namespace {

std::string message(std::string_view json) {
  auto r = parse_request_options(json);
  if (r.ok()) return "";
  CHECK(r.error().code == laya::ErrorCode::kInvalidRequest);
  return r.error().message;
}

RequestOptions parsed(std::string_view json) {
  auto r = parse_request_options(json);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return std::move(r).value();
}

}  // namespace

TEST_CASE("no shape gives the current response; current, 0.3.21 and 0.3.7 are the names") {
  CHECK(parsed("").dialect.truncation_usage);
  CHECK(parsed("{}").dialect.answer_confidence);
  CHECK(parsed("{}").dialect.rendered_legend);
  CHECK(parsed(R"({"shape": null})").dialect.newest_checks);
  const RequestOptions current = parsed(R"({"shape": "current"})");
  CHECK(current.dialect.truncation_usage);
  CHECK(current.dialect.rendered_legend);
  CHECK(current.dialect.newest_checks);
  CHECK_FALSE(parsed(R"({"shape": "0.3.21"})").dialect.truncation_usage);
  CHECK_FALSE(parsed(R"({"shape": "0.3.7"})").dialect.answer_confidence);
  CHECK(message(R"({"shape": "0.4"})") == "options.shape must be \"current\", \"0.3.21\" or \"0.3.7\"");
  CHECK(message(R"({"shape": 3})") == "options.shape must be \"current\", \"0.3.21\" or \"0.3.7\"");
}

TEST_CASE("unknown keys are ignored") {
  CHECK(message(R"({"k": 5, "maxLength": 9, "whatever": [1]})") == "");
}

TEST_CASE("state_token_counts picks upstream #687's usage form, absent keeps the main line's") {
  CHECK(parsed("{}").truncation_usage == TruncationUsage::kAlways);
  CHECK(parsed(R"({"state_token_counts": false})").truncation_usage == TruncationUsage::kFlagsOnly);
  CHECK(parsed(R"({"state_token_counts": true})").truncation_usage == TruncationUsage::kFlagsThenCounts);
  CHECK(message(R"({"state_token_counts": 1})") == "options.state_token_counts must be true or false, got 1");
}

TEST_CASE("min_confidence is checked before anything else of the call") {
  CHECK(message(R"({"shape": "bad", "min_confidence": 2})") ==
        "min_confidence must be a float in [0.0, 1.0], got 2");
  CHECK(message(R"({"min_confidence": NaN})") == "min_confidence must be a float in [0.0, 1.0], got nan");
  CHECK(parsed(R"({"min_confidence": 0.25})").min_confidence->single == 0.25);
  CHECK_FALSE(parsed(R"({"min_confidence": null})").min_confidence.has_value());
}

TEST_CASE("max_len and head_max_len are positive integers up to laya-serve's 8192") {
  const RequestOptions o = parsed(R"({"max_len": 8192, "head_max_len": 64})");
  CHECK(o.max_len == 8192);
  CHECK(o.head_max_len == 64);
  CHECK_FALSE(parsed(R"({"max_len": null})").max_len.has_value());
  CHECK(message(R"({"max_len": 8193})") == "max_len=8193 exceeds server limit 8192");
  CHECK(message(R"({"head_max_len": 100000})") == "head_max_len=100000 exceeds server limit 8192");
  CHECK(message(R"({"max_len": 0})") == "max_len must be a positive integer, got 0");
  CHECK(message(R"({"max_len": 512.0})") == "max_len must be a positive integer, got 512.0");
  CHECK(message(R"({"head_max_len": true})") == "head_max_len must be a positive integer, got True");
}

TEST_CASE("lang is a string and lang_temperatures travels as given") {
  const RequestOptions o = parsed(R"({"lang": "de-AT", "lang_temperatures": {"de": null}})");
  CHECK(o.lang == "de-AT");
  CHECK(o.lang_temperatures.is_object());
  CHECK(message(R"({"lang": 1})") == "lang must be a string, got int");
}
