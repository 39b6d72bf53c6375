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
TEST_CASE("every validation row of laya-spec §4.1 gives the message of upstream 0.3.21") {
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

namespace {

constexpr QuestionOptions kNewest{.newest_checks = true};

}  // namespace

// Expected texts below are laya-spec-current §12 and §2.1's format strings filled in by hand.
TEST_CASE("upstream 0.3.22 on refuses a blank question id, naming it with repr") {
  CHECK(message(R"({"": {"type": "noul", "instructions": "x"}})", kNewest) ==
        "question id must be a non-empty string, got ''");
  CHECK(message(R"({" \t": {"type": "noul", "instructions": "x"}})", kNewest) ==
        "question id must be a non-empty string, got ' \\t'");
  CHECK(message(R"({"": {"type": "noul", "instructions": "x"}})") == "");
}

TEST_CASE("upstream 0.3.22 on refuses null and empty instructions but accepts numbers and booleans") {
  CHECK(message(R"({"q": {"type": "noul", "instructions": null}})", kNewest) ==
        "question 'q': 'instructions' must not be None; add the text the model should answer");
  const std::string empty = "question 'q': 'instructions' must not be empty; add the text the model should answer";
  for (const char* blank : {R"("")", R"(" \n\u3000")", "[]", "{}"}) {
    CHECK_MESSAGE(message(std::string(R"({"q": {"type": "noul", "instructions": )") + blank + "}}", kNewest) == empty,
                  blank);
  }
  CHECK(parsed(R"({"q": {"type": "noul", "instructions": 0}})", kNewest)[0].instructions == "0");
  CHECK(parsed(R"({"q": {"type": "noul", "instructions": false}})", kNewest)[0].instructions == "false");
  CHECK(parsed(R"({"q": {"type": "noul", "instructions": [""]}})", kNewest)[0].instructions == "[\"\"]");
  // The type comes before the instructions.
  CHECK(message(R"({"q": {"type": "x", "instructions": null}})", kNewest) ==
        "question 'q': unknown type 'x'; use one of ['choice', 'noul', 'score']");
}

TEST_CASE("upstream 0.3.22 on names a non-scalar list label with the bool wording and refuses a null one") {
  CHECK(message(R"({"q": {"type": "choice", "instructions": "x", "criteria": ["a", ["b", 1]]}})", kNewest) ==
        "question 'q': choice label 1 is a list; a label is rendered as option text and used as the answer "
        "key, so it must be a scalar (a string, number or bool), got ['b', 1]");
  CHECK(message(R"({"q": {"type": "choice", "instructions": "x", "criteria": ["a", "b", null]}})", kNewest) ==
        "question 'q': choice label 2 is null; a label is rendered as option text and used as the answer key, "
        "so it must be a string, number or bool -- a null label renders as the text \"None\" while its answer "
        "key is \"null\"");
  // Every label is checked for its kind before any is compared with another.
  CHECK(message(R"({"q": {"type": "choice", "instructions": "x", "criteria": ["a", "a", null]}})", kNewest) ==
        "question 'q': choice label 2 is null; a label is rendered as option text and used as the answer key, "
        "so it must be a string, number or bool -- a null label renders as the text \"None\" while its answer "
        "key is \"null\"");
}

TEST_CASE("upstream 0.3.22 on refuses a list label equal to an earlier one under Python's ==") {
  const auto repeat = [](const char* later, int i, int j) {
    return "question 'q': choice label " + std::to_string(i) + " (" + later + ") repeats label " +
           std::to_string(j) + "; the labels are the answer keys, so every option needs its own (1, 1.0 and "
                               "True are one key)";
  };
  CHECK(message(R"({"q": {"type": "choice", "instructions": "x", "criteria": ["a", "b", "a"]}})", kNewest) ==
        repeat("'a'", 2, 0));
  CHECK(message(R"({"q": {"type": "choice", "instructions": "x", "criteria": [1, "1", 1.0]}})", kNewest) ==
        repeat("1.0", 2, 0));
  CHECK(message(R"({"q": {"type": "choice", "instructions": "x", "criteria": ["z", true, 1]}})", kNewest) ==
        repeat("1", 2, 1));
  CHECK(message(R"({"q": {"type": "choice", "instructions": "x", "criteria": [0, false]}})", kNewest) ==
        repeat("False", 1, 0));
  // 1 and "1" are different keys; NaN equals nothing.
  CHECK(message(R"({"q": {"type": "choice", "instructions": "x", "criteria": [1, "1", NaN, NaN]}})", kNewest) == "");
  // A dict's keys are strings json.loads has already merged: nothing to refuse.
  CHECK(message(R"({"q": {"type": "choice", "instructions": "x", "criteria": {"a": 1, "a": 2}}})", kNewest) == "");
}

TEST_CASE("option_order must be a permutation of range(n), integers only") {
  const auto refused = [](const char* order, int n, const char* shown) {
    return "question 'q': 'option_order' must be a permutation of range(" + std::to_string(n) +
           ") -- one slot per option, each option once -- got " + shown;
  };
  const auto choice = [](const char* order) {
    return std::string(R"({"q": {"type": "choice", "instructions": "x", "criteria": ["a", "b", "c"], "option_order": )") +
           order + "}}";
  };
  const auto noul = [](const char* order) {
    return std::string(R"({"q": {"type": "noul", "instructions": "x", "option_order": )") + order + "}}";
  };
  CHECK(message(noul("[1, 0]"), kNewest) == "");
  CHECK(parsed(choice("[2, 0, 1]"), kNewest)[0].option_order == std::vector<size_t>{2, 0, 1});
  CHECK(message(noul("[0, 1.0]"), kNewest) == refused("[0, 1.0]", 2, "[0, 1.0]"));
  CHECK(message(noul("[true, 0]"), kNewest) == refused("[true, 0]", 2, "[True, 0]"));
  CHECK(message(noul("true"), kNewest) == refused("true", 2, "True"));
  CHECK(message(noul("null"), kNewest) == refused("null", 2, "None"));
  CHECK(message(noul(R"("x")"), kNewest) == refused("x", 2, "'x'"));
  CHECK(message(noul("[1, 0, 2]"), kNewest) == refused("", 2, "[1, 0, 2]"));
  CHECK(message(noul("[1, 1]"), kNewest) == refused("", 2, "[1, 1]"));
  CHECK(message(choice("[0, 1, 3]"), kNewest) == refused("", 3, "[0, 1, 3]"));
  CHECK(message(choice("[-1, 0, 1]"), kNewest) == refused("", 3, "[-1, 0, 1]"));
  // A score counts its levels; a choice's dict its entries.
  CHECK(message(R"({"q": {"type": "score", "instructions": "x", "criteria": ["lo", "mid", "hi"], "option_order": [0, 1]}})",
                kNewest) == refused("", 3, "[0, 1]"));
  // Checked after the criteria, before the labels.
  CHECK(message(R"({"q": {"type": "score", "instructions": "x", "criteria": [], "option_order": [0]}})", kNewest) ==
        "question 'q': a score question needs at least one level");
  CHECK(message(R"({"q": {"type": "choice", "instructions": "x", "criteria": ["a"], "option_order": [1], "labels": 1}})",
                kNewest) == refused("", 1, "[1]"));
  // Before 0.3.22 the key is unknown and ignored.
  CHECK(parsed(noul(R"("x")"))[0].option_order.empty());
}
