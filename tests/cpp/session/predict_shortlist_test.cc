// Session::predict_shortlist on tiny-fanin: the embed -> reduce -> predict chain runs on the
// session's own embeddings, and the response is predict's answer of the reduced questions with
// "shortlist" after "usage" (the reduction itself: tests/cpp/decide/shortlist_test.cc).
#include <doctest/doctest.h>

#include <string>

#include "decide/pyjson.h"
#include "decide/shortlist.h"
#include "session/fixture_files.h"
#include "session/session.h"

namespace laya {
namespace {

json::Value parse(const std::string& text) {
  auto v = json::parse(text, "test", {.allow_nonfinite = true});
  REQUIRE(v.ok());
  return std::move(v).value();
}

std::string ok(const Result<std::string>& r) {
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return r.value();
}

TEST_CASE("predict_shortlist answers the reduced questions and adds the shortlist after usage") {
  Session session;
  const std::string checkpoint = testing::reference_dir("tiny-fanin") + "/checkpoint";
  testing::configure_from(session, checkpoint);
  testing::load_weights(session, checkpoint);
  const json::Value state = json::Value::string("w40 w41 w42");
  const json::Value questions = parse(
      R"({"c": {"type": "choice", "instructions": "w10", "criteria": ["w50", "w51", "w52", "w53"]}, )"
      R"("n": {"type": "noul", "instructions": "w11"}})");
  const decide::Dialect dialect = decide::Dialect::v0_3_21();

  const std::string answer = ok(session.predict_shortlist(state, questions, dialect, 2, 16));

  // The same reduction with the session's embed as the embedder, then a plain predict.
  auto embed = [&](const std::vector<std::string>& texts) { return session.embed(texts, 16); };
  auto shortlist = decide::shortlist_questions(state, questions, 2, embed);
  REQUIRE(shortlist.ok());
  REQUIRE(shortlist.value().entries.size() == 1);
  CHECK(shortlist.value().entries[0].labels.size() == 2);
  const std::string reduced = ok(session.predict(state, shortlist.value().questions, dialect));
  CHECK(answer == reduced.substr(0, reduced.size() - 1) + ", \"shortlist\": " +
                      decide::shortlist_json(shortlist.value().entries) + "}");

  // k at least the label count: the questions pass through untouched.
  const std::string passthrough = ok(session.predict_shortlist(state, questions, dialect, 4, 16));
  const std::string plain = ok(session.predict(state, questions, dialect));
  CHECK(passthrough == plain.substr(0, plain.size() - 1) +
                           R"(, "shortlist": {"c": {"labels": ["w50", "w51", "w52", "w53"], "scores": null, "k": 4, "n": 4, "passthrough": true}}})");
}

}  // namespace
}  // namespace laya
