#include "decide/render.h"

#include <doctest/doctest.h>

#include "upstream_fixture.h"

using laya::json::Value;
using laya::decide::head_text;
using laya::decide::option_text;
using laya::decide::parse_questions;
using laya::decide::Question;
using laya::decide::render_options;
using laya::decide::replace_mask;
using laya::decide::serialize_state;
using laya::decide::state_text;
using laya::decide::testing::load_upstream_cases;
using laya::decide::testing::parse_or_fail;

namespace {

Question one_question(const std::string& json, bool ensure_ascii = false) {
  auto r = parse_questions(parse_or_fail(json, "questions"), {.instructions_ensure_ascii = ensure_ascii});
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return r.value().at(0);
}

}  // namespace

TEST_CASE("head, option and state texts equal upstream's recorded pieces on every fixture question") {
  // The recorded fixtures are 0.3.7-shaped; their only non-string instructions are ASCII, so both
  // json.dumps settings give the same head text. Both are checked.
  int cases = 0, questions = 0, mismatches = 0;
  for (const auto& c : load_upstream_cases()) {
    ++cases;
    for (bool ensure_ascii : {true, false}) {
      auto parsed = parse_questions(c.questions, {.instructions_ensure_ascii = ensure_ascii});
      REQUIRE_MESSAGE(parsed.ok(), c.id);
      REQUIRE(parsed.value().size() == c.recorded.size());
      for (size_t i = 0; i < c.recorded.size(); ++i) {
        const Question& q = parsed.value()[i];
        const auto& rec = c.recorded[i];
        REQUIRE(q.id == rec.qid);
        if (ensure_ascii) ++questions;
        bool ok = head_text(q, "[MASK]") == rec.pieces.find("head")->as_string() &&
                  state_text(c.state, "[MASK]") == rec.pieces.find("state")->as_string();
        const auto options = render_options(q);
        const auto& want = rec.pieces.find("options")->items();
        ok = ok && options.size() == want.size();
        for (size_t k = 0; ok && k < options.size(); ++k) ok = option_text(options[k], "[MASK]") == want[k].as_string();
        if (!ok && ++mismatches <= 5) MESSAGE(c.id << " " << q.id);
      }
    }
  }
  MESSAGE("rendered " << cases << " cases, " << questions << " questions");
  CHECK(cases == 134);
  CHECK(questions == 445);
  CHECK(mismatches == 0);
}

TEST_CASE("the state is verbatim text or json.dumps with non-ASCII kept") {
  CHECK(serialize_state(Value::string("  raw [MASK] text\n")) == "  raw [MASK] text\n");
  CHECK(serialize_state(parse_or_fail(R"({"m": "caf\u00e9", "n": [1.0, 1e-7, null]})", "s")) ==
        "{\"m\": \"caf\xc3\xa9\", \"n\": [1.0, 1e-07, null]}");
  CHECK(serialize_state(Value()) == "null");
  CHECK(serialize_state(Value::string("")) == "");
  laya::json::ParseOptions nonfinite;
  nonfinite.allow_nonfinite = true;
  CHECK(serialize_state(laya::json::parse(R"({"x": NaN, "y": -Infinity})", "s", nonfinite).value()) ==
        "{\"x\": NaN, \"y\": -Infinity}");
}

TEST_CASE("every mask literal becomes one space, left to right without overlaps") {
  CHECK(replace_mask("a[MASK]b[MASK][MASK]", "[MASK]") == "a b  ");
  CHECK(replace_mask("[MASK[MASK]]", "[MASK]") == "[MASK ]");
  CHECK(replace_mask("aaa", "aa") == " a");
  CHECK(replace_mask("text", "") == "text");
  CHECK(state_text(parse_or_fail(R"(["[MASK]", "<mask>"])", "s"), "<mask>") == "[\"[MASK]\", \" \"]");
}

TEST_CASE("the head scrubs the mask from the instructions only") {
  const auto q = one_question(R"({"q": {"type": "noul", "instructions": "Is [MASK] here?"}})");
  CHECK(head_text(q, "[MASK]") == "noul question: Is   here?");
}

TEST_CASE("choice options: the label alone without a description, str() of non-string labels") {
  const auto q = one_question(R"({"q": {"type": "choice", "instructions": "x",
      "criteria": {"a": null, "b": "", "c": 0, "d": false, "e": {"k": [1, 2.50]}, "f": "plain"}}})");
  CHECK(render_options(q) ==
        std::vector<std::string>{"a", "b", "c: 0", "d: false", "e: {\"k\": [1, 2.5]}", "f: plain"});
  const auto list = one_question(R"({"q": {"type": "choice", "instructions": "x",
                                           "criteria": [true, null, 1.50, 1e5, -0, "s"]}})");
  CHECK(render_options(list) == std::vector<std::string>{"True", "None", "1.5", "100000.0", "0", "s"});
}

TEST_CASE("score options are numbered levels and noul options come false first") {
  const auto s = one_question(R"({"q": {"type": "score", "instructions": "x", "criteria": ["low", 3, ["a"]]}})");
  CHECK(render_options(s) == std::vector<std::string>{"level 0: low", "level 1: 3", "level 2: [\"a\"]"});
  const auto n = one_question(R"({"q": {"type": "noul", "instructions": "x"}})");
  CHECK(render_options(n) ==
        std::vector<std::string>{"false: no, the statement does not hold", "true: yes, the statement holds"});
  const auto l = one_question(R"({"q": {"type": "noul", "instructions": "x", "criteria": {"true": 0, "false": ""},
                                        "labels": {"false": "B", "true": "A"}}})");
  CHECK(render_options(l) == std::vector<std::string>{"B: no, the statement does not hold", "A: 0"});
}

TEST_CASE("an option is tokenized with one leading space, the mask scrubbed") {
  CHECK(option_text("a[MASK]b", "[MASK]") == " a b");
  CHECK(option_text("", "[MASK]") == " ");
}
