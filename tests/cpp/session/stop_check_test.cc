// Session::set_stop_check (the engine's half of an abort, engine/executor.h StopCheck): a check set
// before the weights are bound reaches both executors, a stop is an aborted error from predict,
// embed and forward alike, and the session then answers exactly as before.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "session/fixture_files.h"
#include "session/session.h"

namespace laya {
namespace {

json::Value parse(const std::string& text) {
  auto v = json::parse(text, "test");
  REQUIRE(v.ok());
  return std::move(v).value();
}

template <class T>
void require_aborted(const Result<T>& r, const char* what) {
  INFO(what);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kAborted);
  CHECK(r.error().message.find("forward: stopped on request before step ") == 0);
}

TEST_CASE("a stop check set before loading stops predict, embed and forward; the session then answers as before") {
  Session session;
  bool stop = false;
  int asked = 0;
  session.set_stop_check([&] { ++asked; return stop; });
  const std::string checkpoint = testing::reference_dir("tiny-fanin") + "/checkpoint";
  testing::configure_from(session, checkpoint);
  testing::load_weights(session, checkpoint);

  const json::Value state = json::Value::string("w40 w41 w42");
  const json::Value questions = parse(R"({"c": {"type": "choice", "instructions": "w10", "criteria": ["w50", "w51"]}})");
  const decide::Dialect dialect = decide::Dialect::v0_3_21();
  const std::vector<std::string> texts = {"w5 w7", "w9"};
  Batch batch;
  batch.add(std::vector<int32_t>{1, 20, 21, 2}, std::vector<int32_t>{1, 2}, 0);

  const Result<std::string> answer = session.predict(state, questions, dialect);
  REQUIRE(answer.ok());
  const auto embedded = session.embed(texts, 16);
  REQUIRE(embedded.ok());
  CHECK(asked > 0);  // both executors ask

  stop = true;
  require_aborted(session.predict(state, questions, dialect), "predict");
  require_aborted(session.embed(texts, 16), "embed");
  require_aborted(session.forward_decisions(batch, false), "forward_decisions");
  require_aborted(session.forward_embeddings(batch, true), "forward_embeddings");

  stop = false;
  const Result<std::string> again = session.predict(state, questions, dialect);
  REQUIRE(again.ok());
  CHECK(again.value() == answer.value());
  const auto embedded_again = session.embed(texts, 16);
  REQUIRE(embedded_again.ok());
  CHECK(embedded_again.value() == embedded.value());
}

}  // namespace
}  // namespace laya
