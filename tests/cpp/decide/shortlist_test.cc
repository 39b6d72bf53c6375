// predict_shortlist's reduction (laya-spec §5.8) over a scripted embedder: the texts it embeds match
// upstream's rendering (checked against the recorded pieces of fixtures/upstream), ranking is by
// cosine and stable, the reduced question lists the kept labels in rank order with descriptions
// as written, and the response writer puts "shortlist" after "usage".
#include "decide/shortlist.h"

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <map>

#include "decide/pyjson.h"
#include "decide/request.h"
#include "upstream_fixture.h"

using laya::ErrorCode;
using laya::Result;
using laya::json::Value;
using laya::decide::dumps;
using laya::decide::EmbedTexts;
using laya::decide::Shortlist;
using laya::decide::shortlist_json;
using laya::decide::shortlist_questions;
using laya::decide::testing::load_upstream_cases;
using laya::decide::testing::parse_or_fail;

namespace {

// An embedder whose rows come from a function of each text, recording every call.
struct ScriptedEmbedder {
  std::function<std::vector<float>(const std::string&)> vector;
  std::vector<std::vector<std::string>> calls;

  EmbedTexts embed() {
    return [this](const std::vector<std::string>& texts) -> Result<std::vector<std::vector<float>>> {
      calls.push_back(texts);
      std::vector<std::vector<float>> rows;
      for (const std::string& text : texts) rows.push_back(vector(text));
      return rows;
    };
  }
};

// Each option's row is picked by its label (the text before ':' or a newline); the query is [1, 0, 0].
ScriptedEmbedder colour_embedder() {
  static const std::map<std::string, std::vector<float>> colours = {
      {"query", {1, 0, 0}},
      {"red", {0, 1, 0}},         // cosine 0
      {"green", {1, 1, 0}},       // 0.7071
      {"blue", {2, 0, 0}},        // 1
      {"cyan", {1, 1, 0}},        // 0.7071, ties with green (later)
      {"none", {0, 0, 0}},        // zero norm: 0
      {"broken", {NAN, 1, 0}},    // NaN read as 0: cosine 0
      {"away", {-1, 0, 0}},       // -1
  };
  return {[](const std::string& text) {
            const std::string key = text.substr(0, std::min(text.find(':'), text.find('\n')));
            auto it = colours.find(key);
            return it == colours.end() ? colours.at("query") : it->second;
          },
          {}};
}

Shortlist shortlisted(const Value& state, const std::string& questions, int64_t k, ScriptedEmbedder& embedder) {
  auto result = shortlist_questions(state, parse_or_fail(questions, "questions"), k, embedder.embed());
  REQUIRE_MESSAGE(result.ok(), (result.ok() ? "" : result.error().message));
  return std::move(result).value();
}

laya::Error shortlist_error(const std::string& questions, int64_t k = 20) {
  ScriptedEmbedder embedder = colour_embedder();
  auto result = shortlist_questions(Value::string("s"), parse_or_fail(questions, "questions"), k, embedder.embed());
  REQUIRE_FALSE(result.ok());
  return result.error();
}

}  // namespace

TEST_CASE("the k most similar labels are kept, ties in label order, and criteria are rebuilt in rank order") {
  ScriptedEmbedder embedder = colour_embedder();
  const Shortlist s = shortlisted(
      Value::string("query"),
      R"({"c": {"type": "choice", "instructions": "", "criteria": {"red": null, "green": 1.0, "blue": "b", "cyan": "", "none": [1, 2.50], "broken": null, "away": null}}, )"
      R"("n": {"type": "noul", "instructions": "x"}})",
      3, embedder);
  CHECK(shortlist_json(s.entries) ==
        R"({"c": {"labels": ["blue", "green", "cyan"], "scores": [1.0, 0.7071067811865475, 0.7071067811865475], "k": 3, "n": 7, "passthrough": false}})");
  CHECK(embedder.calls == std::vector<std::vector<std::string>>{
                              {"query", "red", "green: 1.0", "blue: b", "cyan", "none: [1, 2.5]", "broken", "away"}});
  CHECK(dumps(s.questions, false) ==
        R"({"c": {"type": "choice", "instructions": "", "criteria": {"blue": "b", "green": 1.0, "cyan": ""}}, "n": {"type": "noul", "instructions": "x"}})");
}

TEST_CASE("questions with at most k labels pass through untouched, without embedding") {
  ScriptedEmbedder embedder = colour_embedder();
  const std::string questions = R"({"c": {"type": "choice", "instructions": "i", "criteria": ["red", "green"]}})";
  const Shortlist s = shortlisted(parse_or_fail(R"({"a": 1})", "state"), questions, 2, embedder);
  CHECK(embedder.calls.empty());
  CHECK(dumps(s.questions, false) == dumps(parse_or_fail(questions, "questions"), false));
  CHECK(shortlist_json(s.entries) ==
        R"({"c": {"labels": ["red", "green"], "scores": null, "k": 2, "n": 2, "passthrough": true}})");
}

TEST_CASE("the response writer puts the shortlist after usage") {
  const laya::decide::PreparedRequest no_questions;
  auto response = laya::decide::answer_request(no_questions, {}, {},
                                               laya::decide::ExtraMember{"shortlist", R"({"c": {"k": 2}})"});
  REQUIRE(response.ok());
  CHECK(response.value() ==
        R"({"model": "laya-rl-agent", "answers": {}, "usage": {"input_tokens": 0, "output_tokens": 0}, "shortlist": {"c": {"k": 2}}})");
}

TEST_CASE("a list of labels becomes a dict of label to null in rank order") {
  ScriptedEmbedder embedder = colour_embedder();
  const Shortlist s = shortlisted(Value::string("query"),
                                  R"({"c": {"type": "choice", "instructions": "i", "criteria": ["away", "blue", "red"]}})",
                                  2, embedder);
  CHECK(dumps(s.questions, false) ==
        R"({"c": {"type": "choice", "instructions": "i", "criteria": {"blue": null, "red": null}}})");
  REQUIRE(embedder.calls.size() == 1);
  CHECK(embedder.calls[0][0] == "i\nquery");
}

TEST_CASE("the query is the instructions then the state as Python json.dumps writes them") {
  ScriptedEmbedder embedder{[](const std::string&) { return std::vector<float>{1, 2}; }, {}};
  shortlisted(parse_or_fail(R"({"n": 1.0, "t": "é"})", "state"),
              R"({"c": {"type": "choice", "instructions": {"k": [1]}, "criteria": ["a", "b"]}})", 1, embedder);
  REQUIRE(embedder.calls.size() == 1);
  CHECK(embedder.calls[0][0] == "{\"k\": [1]}\n{\"n\": 1.0, \"t\": \"é\"}");
}

TEST_CASE("errors name k, the question and the duplicated label") {
  laya::Error k = shortlist_error("{}", 0);
  CHECK(k.code == ErrorCode::kInvalidRequest);
  CHECK(k.message == "predictShortlist: k must be a positive integer, got 0");
  CHECK(shortlist_error(R"({"q": {"type": "choice", "instructions": "i", "criteria": {}}})").message ==
        "predictShortlist: question 'q' is a choice but has no criteria");
  laya::Error duplicated = shortlist_error(R"({"q": {"type": "choice", "instructions": "i", "criteria": ["a", "a"]}})");
  CHECK(duplicated.code == ErrorCode::kInvalidRequest);
  CHECK(duplicated.message == "predictShortlist: choice criteria label 'a' is duplicated");
  CHECK(shortlist_error(R"({"q": {"type": "choice", "instructions": "i", "criteria": ["a", [1]]}})").message ==
        "predictShortlist: question 'q': choice label 1 is an array, not a string");
  CHECK(shortlist_error("[]").message == "predictShortlist: questions must be an object keyed by question id");
}

TEST_CASE("an embedder that returns the wrong shape is an internal error naming the shape") {
  ScriptedEmbedder embedder{{}, {}};
  const EmbedTexts one_row = [](const std::vector<std::string>&) -> Result<std::vector<std::vector<float>>> {
    return std::vector<std::vector<float>>{{1, 2}};
  };
  auto result = shortlist_questions(Value::string("s"),
                                    parse_or_fail(R"({"c": {"type": "choice", "criteria": ["a", "b"]}})", "q"), 1, one_row);
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().code == ErrorCode::kInternal);
  CHECK(result.error().message == "predictShortlist: embed must return an array of shape (3, dim), got 1 rows of [2]");
}

TEST_CASE("option texts and the query match the pieces upstream rendered for every recorded choice question") {
  int options = 0, queries = 0;
  for (const auto& c : load_upstream_cases()) {
    if (!c.questions.is_object()) continue;
    ScriptedEmbedder embedder{[](const std::string&) { return std::vector<float>{1, 0}; }, {}};
    // k = 1 shortlists every choice question with two or more labels: each is embedded once, in order.
    auto result = shortlist_questions(c.state, c.questions, 1, embedder.embed());
    REQUIRE_MESSAGE(result.ok(), c.id << ": " << (result.ok() ? "" : result.error().message));
    std::vector<const laya::decide::testing::RecordedQuestion*> embedded;
    for (const auto& q : c.recorded) {
      if (q.type == "choice" && q.pieces.find("options")->items().size() > 1) embedded.push_back(&q);
    }
    REQUIRE_MESSAGE(embedder.calls.size() == embedded.size(), c.id);
    for (size_t j = 0; j < embedded.size(); ++j) {
      const auto& q = *embedded[j];
      const std::vector<std::string>& texts = embedder.calls[j];
      const Value& question = *c.questions.find(q.qid);
      const Value* instructions = question.find("instructions");
      // Upstream scrubs the mask literal before tokenizing; the shortlist does not.
      if (dumps(question, false).find("[MASK]") == std::string::npos) {
        std::vector<std::string> want;
        for (const Value& option : q.pieces.find("options")->items()) want.push_back(option.as_string().substr(1));
        CHECK_MESSAGE(std::vector<std::string>(texts.begin() + 1, texts.end()) == want, c.id << " " << q.qid);
        ++options;
      }
      if (instructions != nullptr && instructions->is_string() && !instructions->as_string().empty() &&
          c.case_line.find("[MASK]") == std::string::npos) {
        const std::string head = q.pieces.find("head")->as_string();
        CHECK_MESSAGE(texts[0] == head.substr(std::string("choice question: ").size()) + "\n" +
                                      q.pieces.find("state")->as_string(),
                      c.id << " " << q.qid);
        ++queries;
      }
    }
  }
  CHECK(options > 50);
  CHECK(queries > 50);
}
