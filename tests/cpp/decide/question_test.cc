#include "decide/question.h"

#include <doctest/doctest.h>

#include "upstream_fixture.h"

using laya::decide::parse_questions;
using laya::decide::QType;
using laya::decide::Question;
using laya::decide::QuestionOptions;
using laya::decide::testing::parse_or_fail;

namespace {

// The message parse_questions gives for `questions_json`, or "" when it is accepted.
std::string message(const std::string& questions_json, QuestionOptions options = {}) {
  auto r = parse_questions(parse_or_fail(questions_json, "questions"), options);
  if (r.ok()) return "";
  CHECK(r.error().code == laya::ErrorCode::kInvalidRequest);
  return r.error().message;
}

std::vector<Question> parsed(const std::string& questions_json, QuestionOptions options = {}) {
  auto r = parse_questions(parse_or_fail(questions_json, "questions"), options);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return std::move(r).value();
}

}  // namespace

// Expected texts are upstream's format strings (agent.py _check_question, common.py
// _resolve_noul_labels) filled in by hand.
TEST_CASE("every validation row of laya-spec §4.1 gives current upstream's message") {
  CHECK(message(R"({"q": "text"})") == "question 'q': definition must be a dict, got str");
  CHECK(message(R"({"q": [1]})") == "question 'q': definition must be a dict, got list");
  CHECK(message(R"({"q": null})") == "question 'q': definition must be a dict, got NoneType");
  CHECK(message(R"({"q": {"type": "pick", "instructions": "x"}})") ==
        "question 'q': unknown type 'pick'; use one of ['choice', 'noul', 'score']");
  CHECK(message(R"({"q": {"instructions": "x"}})") ==
        "question 'q': unknown type None; use one of ['choice', 'noul', 'score']");
  CHECK(message(R"({"q": {"type": 2, "instructions": "x"}})") ==
        "question 'q': unknown type 2; use one of ['choice', 'noul', 'score']");
  CHECK(message(R"({"q": {"type": "noul"}})") ==
        "question 'q': no 'instructions'; add the text the model should answer");
  CHECK(message(R"({"q": {"type": "choice", "instructions": "x", "criteria": "a"}})") ==
        "question 'q': a choice question takes 'criteria' as a dict of label -> description, or a list of labels");
  CHECK(message(R"({"q": {"type": "choice", "instructions": "x"}})") ==
        "question 'q': a choice question takes 'criteria' as a dict of label -> description, or a list of labels");
  CHECK(message(R"({"q": {"type": "choice", "instructions": "x", "criteria": []}})") ==
        "question 'q': a choice question needs at least one criterion");
  CHECK(message(R"({"q": {"type": "choice", "instructions": "x", "criteria": {}}})") ==
        "question 'q': a choice question needs at least one criterion");
  CHECK(message(R"({"q": {"type": "choice", "instructions": "x", "criteria": ["a", ["b", 1]]}})") ==
        "question 'q': choice label 1 is a list; a label is rendered as option text and used as the answer "
        "key, so it must be a scalar (a string, number or None), got ['b', 1]");
  CHECK(message(R"({"q": {"type": "choice", "instructions": "x", "criteria": [{"k": 1.0}]}})") ==
        "question 'q': choice label 0 is a dict; a label is rendered as option text and used as the answer "
        "key, so it must be a scalar (a string, number or None), got {'k': 1.0}");
  CHECK(message(R"({"q": {"type": "score", "instructions": "x", "criteria": {"0": "a"}}})") ==
        "question 'q': a score question takes 'criteria' as a list of level descriptions, index 0 first");
  CHECK(message(R"({"q": {"type": "score", "instructions": "x", "criteria": []}})") ==
        "question 'q': a score question needs at least one level");
  CHECK(message(R"({"q": {"type": "score", "instructions": "x", "criteria": ["a", null, null]}})") ==
        "question 'q': score level 1 is null; give every level a description, index 0 first");
  CHECK(message(R"({"q": {"type": "noul", "instructions": "x", "criteria": ["yes"]}})") ==
        "question 'q': a noul question takes 'criteria' as a dict with optional 'true'/'false' descriptions, "
        "or omits it");
  CHECK(message(R"({"q": {"type": "noul", "instructions": "x", "criteria": {"True": "a", "yes": "b"}}})") ==
        "question 'q': a noul question takes 'criteria' keyed only 'true'/'false' (either or both, and omitted "
        "is fine), got ['true', 'yes']. Those keys are the option texts the model reads; any other key was "
        "silently dropped and replaced with the defaults. If you want the answer worded differently, keep "
        "'criteria' keyed 'true'/'false' and set 'labels' instead.");
  CHECK(message(R"({"q": {"type": "choice", "instructions": "x", "criteria": ["a"], "labels": null}})") ==
        "question 'q': 'labels' is only supported for noul questions");
  const std::string bad_labels =
      "question 'q': noul labels must map exactly 'false' and 'true' to distinct non-empty strings";
  for (const char* labels : {R"(["no", "yes"])", R"({"false": "no"})", R"({"false": "no", "true": "yes", "x": "?"})",
                             R"({"false": "no", "true": 1})", R"({"false": " ", "true": "yes"})",
                             R"({"false": "same", "true": " same "})", R"({"False": "no", "true": "yes"})"}) {
    CHECK_MESSAGE(message(std::string(R"({"q": {"type": "noul", "instructions": "x", "labels": )") + labels + "}}") ==
                      bad_labels,
                  labels);
  }
  CHECK(message("[]") == "questions must be a dict keyed by question id, got list");
}

TEST_CASE("question ids are printed with Python's repr") {
  CHECK(message(R"({"it's": 1})") == "question \"it's\": definition must be a dict, got int");
  CHECK(message(R"({"a\nb": 1.5})") == "question 'a\\nb': definition must be a dict, got float");
}

TEST_CASE("the first invalid question in request order is the one reported") {
  CHECK(message(R"({"ok": {"type": "noul", "instructions": "x"}, "bad1": 1, "bad2": 2})") ==
        "question 'bad1': definition must be a dict, got int");
}

TEST_CASE("questions keep request order and Python's dict semantics for repeated ids") {
  const auto qs = parsed(R"({"b": {"type": "noul", "instructions": "1"}, "a": {"type": "noul", "instructions": "2"},
                            "b": {"type": "score", "instructions": "3", "criteria": ["lo", "hi"]}})");
  REQUIRE(qs.size() == 2);
  CHECK(qs[0].id == "b");
  CHECK(qs[0].type == QType::kScore);
  CHECK(qs[0].instructions == "3");
  CHECK(qs[1].id == "a");
}

TEST_CASE("choice criteria as a dict keep labels and descriptions in order") {
  const auto q = parsed(R"({"q": {"type": "choice", "instructions": "x",
                                  "criteria": {"b": "desc", "a": null, "b": 0}}})")[0];
  REQUIRE(q.labels.size() == 2);
  CHECK(q.labels[0].as_string() == "b");
  CHECK(q.criteria[0].number_text() == "0");
  CHECK(q.labels[1].as_string() == "a");
  CHECK(q.criteria[1].is_null());
  CHECK(q.option_count() == 2);
}

TEST_CASE("choice criteria as a list merge equal labels silently, as a Python dict does") {
  const auto q = parsed(R"({"q": {"type": "choice", "instructions": "x",
                                  "criteria": ["a", 1, "a", 1.0, true, null, "1", null]}})")[0];
  REQUIRE(q.labels.size() == 4);
  CHECK(q.labels[0].as_string() == "a");
  CHECK(q.labels[1].number_text() == "1");  // 1.0 and true are the same key; the first spelling stays
  CHECK(q.labels[2].is_null());
  CHECK(q.labels[3].as_string() == "1");
  for (const auto& c : q.criteria) CHECK(c.is_null());
}

TEST_CASE("noul criteria keys are lower-cased and labels are stripped") {
  const auto q = parsed(R"({"q": {"type": "noul", "instructions": "x", "criteria": {"TRUE": "yes it is", "False": ""},
                                  "labels": {"true": " A\u3000", "false": "\tB "}}})")[0];
  CHECK(q.criteria[1].as_string() == "yes it is");
  CHECK(q.criteria[0].as_string().empty());
  CHECK(q.true_label == "A");
  CHECK(q.false_label == "B");
  CHECK(q.option_count() == 2);
  const auto d = parsed(R"({"q": {"type": "noul", "instructions": "x", "criteria": null, "labels": null}})")[0];
  CHECK(d.criteria[0].is_null());
  CHECK(d.false_label == "false");
}

TEST_CASE("keys that lower alike: the one json.loads saw first keeps its place, the last value wins") {
  // json.loads gives {"true": "c", "TRUE": "b"}; lowering then writes "c" and then "b".
  const auto q = parsed(R"({"q": {"type": "noul", "instructions": "x",
                                  "criteria": {"true": "a", "TRUE": "b", "true": "c"}}})")[0];
  CHECK(q.criteria[1].as_string() == "b");
}

TEST_CASE("non-string instructions are json.dumps text, non-ASCII escaped only in the 0.3.7 dialect") {
  const std::string questions = R"({"q": {"type": "noul", "instructions": {"ask": "caf\u00e9", "n": 1.50}}})";
  CHECK(parsed(questions)[0].instructions == "{\"ask\": \"caf\xc3\xa9\", \"n\": 1.5}");
  CHECK(parsed(questions, {.instructions_ensure_ascii = true})[0].instructions ==
        "{\"ask\": \"caf\\u00e9\", \"n\": 1.5}");
  CHECK(parsed(R"({"q": {"type": "noul", "instructions": null}})")[0].instructions == "null");
}
