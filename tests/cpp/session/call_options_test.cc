// A call's options (decide/request_options.h) through Session::prepare / answer on the tiny-fanin
// reference checkpoint: per-call budgets, language temperatures and the min_confidence gate.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "decide/request_options.h"
#include "session/fixture_files.h"
#include "session/session.h"
#include "util/json.h"

namespace laya {
namespace {

Session& tiny() {
  return testing::tiny_session();
}

json::Value parse(const std::string& text) {
  auto v = json::parse(text, "test");
  REQUIRE_MESSAGE(v.ok(), (v.ok() ? "" : v.error().message));
  return v.value();
}

decide::RequestOptions options(const std::string& json) {
  auto o = decide::parse_request_options(json);
  REQUIRE_MESSAGE(o.ok(), (o.ok() ? "" : o.error().message));
  return o.value();
}

const std::string kQuestion = R"({"q": {"type": "choice", "instructions": "w7 w8", "criteria": ["w9", "w10"]}})";

std::string long_state() {
  std::string s;
  for (int i = 0; i < 200; ++i) s += (i ? " w" : "w") + std::to_string(i % 50 + 1);
  return s;
}

// The answer to kQuestion from chosen logits: 0 and 2·ln 3, so T = 2 gives p = (0.25, 0.75).
Result<std::string> answer_with(const decide::RequestOptions& o) {
  LAYA_ASSIGN_OR_RETURN(decide::PreparedRequest request, tiny().prepare(json::Value::string("w5"), parse(kQuestion), o));
  return tiny().answer(request, {{{0.0f, 2.1972245773f}, {0.0f, 0.0f}}}, o);
}

}  // namespace

TEST_CASE("max_len and head_max_len of a call replace the checkpoint's for that call only") {
  auto cut = tiny().prepare(json::Value::string(long_state()), parse(kQuestion), options(R"({"max_len": 40})"));
  REQUIRE(cut.ok());
  CHECK(cut.value().rows[0].ids.size() == 40);
  auto whole = tiny().prepare(json::Value::string(long_state()), parse(kQuestion), options("{}"));
  REQUIRE(whole.ok());
  CHECK(whole.value().rows[0].ids.size() > 40);
  CHECK(whole.value().state_dropped[0] == 0);
  // The state is the same 200 words either way; only the cut one loses some.
  CHECK(cut.value().state_tokens == whole.value().state_tokens);
  CHECK(cut.value().state_dropped[0] > 0);

  // [CLS] and at least one head id come before the first marker, so max_len 3 holds none.
  auto crowded = tiny().prepare(json::Value::string("w5"), parse(kQuestion),
                                options(R"({"shape": "current", "max_len": 3, "head_max_len": 16})"));
  REQUIRE_FALSE(crowded.ok());
  CHECK(crowded.error().message ==
        "question 'q': only 0 of its 2 option markers fit in max_len=3 with head_max_len=16 spent on the question; "
        "lower head_max_len, raise max_len, or use fewer options");
}

TEST_CASE("a predict with a cut state reports it in the current shape's usage, which is the default; 0.3.21's has no such keys") {
  auto cut = tiny().predict(json::Value::string(long_state()), parse(kQuestion),
                            options(R"({"shape": "current", "max_len": 40})"));
  REQUIRE_MESSAGE(cut.ok(), (cut.ok() ? "" : cut.error().message));
  CHECK(cut.value().find(R"("input_tokens": 40, "output_tokens": 0, "state_tokens": )") != std::string::npos);
  CHECK(cut.value().find(R"("truncated": true, "truncated_questions": ["q"]})") != std::string::npos);
  auto by_default = tiny().predict(json::Value::string(long_state()), parse(kQuestion), options(R"({"max_len": 40})"));
  REQUIRE(by_default.ok());
  CHECK(by_default.value() == cut.value());
  auto older = tiny().predict(json::Value::string(long_state()), parse(kQuestion),
                              options(R"({"shape": "0.3.21", "max_len": 40})"));
  REQUIRE(older.ok());
  CHECK(older.value().find("truncated") == std::string::npos);
}

TEST_CASE("lang picks its lang_temperatures entry by primary subtag; other languages keep the checkpoint's") {
  const std::string table = R"("lang_temperatures": {"de": {"temperature": [2, 2, 2]}})";
  auto de = answer_with(options(R"({"lang": "de-AT", )" + table + "}"));
  REQUIRE_MESSAGE(de.ok(), (de.ok() ? "" : de.error().message));
  CHECK(de.value().find(R"("probabilities": {"w9": 0.25, "w10": 0.75})") != std::string::npos);
  auto fr = answer_with(options(R"({"lang": "fr", )" + table + "}"));
  auto none = answer_with(options("{}"));
  REQUIRE(fr.ok());
  REQUIRE(none.ok());
  CHECK(fr.value() == none.value());
  CHECK(none.value().find(R"("w10": 0.75)") == std::string::npos);
  auto bad = answer_with(options(R"({"lang": "de", "lang_temperatures": {"de": {"temperature": [2]}}})"));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "Language override 'de' temperature must be a list of 3 floats, got [2]");
}

TEST_CASE("the min_confidence of a call gates its answers by bucket") {
  const std::string lang = R"("lang": "de", "lang_temperatures": {"de": {"temperature": [2, 2, 2]}})";
  auto low = answer_with(options(R"({"min_confidence": {"choice:2": 0.8}, )" + lang + "}"));
  REQUIRE(low.ok());
  CHECK(low.value().find(R"("action": {"act_probability": 0.5}, "low_confidence": true, "abstention": "abstained", )"
                         R"("abstention_threshold": 0.8}})") != std::string::npos);
  auto passed = answer_with(options(R"({"min_confidence": {"choice:3-5": 0.8, "default": 0.75}, )" + lang + "}"));
  REQUIRE(passed.ok());
  CHECK(passed.value().find(R"("abstention": "passed", "abstention_threshold": 0.75}})") != std::string::npos);
}

}  // namespace laya
