// A session planned for an outside backend (Session::plan_outside) answers by replay: each run
// lists the batches it waits for, the backend supplies their outputs, and the run is repeated.
// Here the "backend" is a second session holding the weights on the CPU, so every answer must be
// byte-identical to that session's own: predict (one round), embed, and predict_shortlist (an
// embedding round, then a decision round).
#include "session/outside_runs.h"

#include <doctest/doctest.h>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "plan/bucket.h"
#include "session/fixture_files.h"
#include "session/session.h"

namespace laya {
namespace {

const std::string kTiny = testing::reference_dir("tiny-fanin") + "/checkpoint";

json::Value parse(const std::string& text) {
  auto v = json::parse(text, "test");
  REQUIRE(v.ok());
  return std::move(v).value();
}

void plan_outside(Session& session, const std::string& checkpoint) {
  testing::configure_from(session, checkpoint);
  const std::string file = testing::read_file(checkpoint + "/model.safetensors");
  auto bytes = std::span(reinterpret_cast<const std::byte*>(file.data()), file.size());
  auto needed = session.header_bytes_needed(bytes.first(8), file.size());
  REQUIRE(needed.ok());
  Status s = session.plan_outside(bytes.first(needed.value()), file.size());
  REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
}

// Runs `request` on the outside session until nothing is pending, each pending batch answered by
// the CPU session; returns the result and counts the rounds.
template <typename T>
T replay(Session& outside, Session& cpu, const std::function<Result<T>()>& request, int& rounds) {
  OutsideRuns& runs = outside.outside()->runs();
  runs.begin_request();
  for (rounds = 1;; ++rounds) {
    runs.begin_replay();
    Result<T> result = request();
    if (runs.pending().empty()) {
      REQUIRE_MESSAGE(result.ok(), (result.ok() ? "" : result.error().message));
      return std::move(result).value();
    }
    REQUIRE(rounds < 10);
    for (const OutsideRuns::Pending& p : runs.pending()) {
      std::vector<float> floats;
      if (p.graph == GraphKind::kDecision) {
        auto out = cpu.forward_decisions(p.batch, false);
        REQUIRE(out.ok());
        for (const DecisionOutput& o : out.value()) floats.insert(floats.end(), o.logits.begin(), o.logits.end());
        for (const DecisionOutput& o : out.value()) floats.insert(floats.end(), o.act.begin(), o.act.end());
      } else {
        auto out = cpu.forward_embeddings(p.batch, false);
        REQUIRE(out.ok());
        for (const auto& row : out.value()) floats.insert(floats.end(), row.begin(), row.end());
      }
      REQUIRE(runs.supply(p.graph, p.index, floats).ok());
    }
  }
}

struct Sessions {
  Session cpu;
  Session outside;
  Sessions() {
    testing::configure_from(cpu, kTiny);
    testing::load_weights(cpu, kTiny);
    plan_outside(outside, kTiny);
  }
};

const json::Value kState = json::Value::string("w40 w41 w42");
const char* kQuestions =
    R"({"c": {"type": "choice", "instructions": "w10", "criteria": ["w50", "w51", "w52", "w53"]}, )"
    R"("n": {"type": "noul", "instructions": "w11"}, "s": {"type": "score", "instructions": "w12", "criteria": ["w60", "w61", "w62"]}})";

TEST_CASE("an outside session answers predict exactly as the CPU session, in one round of batches") {
  Sessions s;
  const decide::Dialect dialect = decide::Dialect::v0_3_21();
  const json::Value questions = parse(kQuestions);
  int rounds = 0;
  const std::string answer = replay<std::string>(
      s.outside, s.cpu, [&] { return s.outside.predict(kState, questions, dialect); }, rounds);
  auto expected = s.cpu.predict(kState, questions, dialect);
  REQUIRE(expected.ok());
  CHECK(answer == expected.value());
  CHECK(rounds == 2);  // the batches, then the answer
}

TEST_CASE("an outside session's embeddings are the CPU session's") {
  Sessions s;
  const std::vector<std::string> texts = {"w40 w41", "", "w1 w2 w3 w4 w5 w6 w7 w8"};
  int rounds = 0;
  auto rows = replay<std::vector<std::vector<float>>>(s.outside, s.cpu, [&] { return s.outside.embed(texts, 16); }, rounds);
  auto expected = s.cpu.embed(texts, 16);
  REQUIRE(expected.ok());
  CHECK(rows == expected.value());
}

TEST_CASE("predict_shortlist on an outside session embeds in one round and decides in the next") {
  Sessions s;
  const decide::Dialect dialect = decide::Dialect::v0_3_21();
  const json::Value questions = parse(kQuestions);
  int rounds = 0;
  const std::string answer = replay<std::string>(
      s.outside, s.cpu, [&] { return s.outside.predict_shortlist(kState, questions, dialect, 2, 16); }, rounds);
  auto expected = s.cpu.predict_shortlist(kState, questions, dialect, 2, 16);
  REQUIRE(expected.ok());
  CHECK(answer == expected.value());
  CHECK(rounds == 3);
}

TEST_CASE("outputs of the wrong length or for a batch that was never asked for are refused, naming it") {
  Sessions s;
  OutsideRuns& runs = s.outside.outside()->runs();
  runs.begin_request();
  (void)s.outside.predict(kState, parse(kQuestions), decide::Dialect::v0_3_21());
  REQUIRE(runs.pending().size() == 1);
  const std::vector<float> few(3, 0.0f);
  Status short_outputs = runs.supply(GraphKind::kDecision, 0, few);
  REQUIRE_FALSE(short_outputs.ok());
  CHECK(short_outputs.error().message.find("decision batch 0 has") != std::string::npos);
  Status unknown = runs.supply(GraphKind::kEmbedding, 0, few);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().message == "supply: there is no embedding batch 0");
}

TEST_CASE("a batch with an id outside the vocabulary is refused before any backend sees it") {
  Sessions s;
  Batch batch;
  const int32_t ids[] = {1, 999999};
  const int32_t markers[] = {0};
  batch.add(ids, markers, 0);
  s.outside.outside()->runs().begin_request();
  auto out = s.outside.forward_decisions(batch, false);
  REQUIRE_FALSE(out.ok());
  CHECK(out.error().message.find("999999") != std::string::npos);
  CHECK(s.outside.outside()->runs().pending().empty());
}

TEST_CASE("an outside session plans each bucket with the seed's planner and holds no weights") {
  Sessions s;
  auto plan = s.outside.outside()->plan_bucket(GraphKind::kDecision, bucket_for({.tokens = 20, .seqs = 2, .markers = 5}));
  REQUIRE(plan.ok());
  CHECK(plan.value().bucket == RowCounts{32, 2, 8});
  CHECK(plan.value().layout.len > 0);
  CHECK(s.outside.memory().weights_bytes == 0);
  CHECK(s.outside.memory().arena_bytes == 0);
}

}  // namespace
}  // namespace laya

namespace laya {
namespace {

TEST_CASE("the outside backend's copy of a vector is checked finite as binding checks it, naming the tensor") {
  Session outside;
  plan_outside(outside, kTiny);
  const ModelPlan& plan = outside.outside()->plan();
  size_t index = plan.weights.size();
  for (size_t i = 0; i < plan.weights.size(); ++i) {
    if (plan.weights[i].name == "encoder.final_norm.weight") index = i;
  }
  REQUIRE(index < plan.weights.size());
  const WeightView& norm = plan.weights[index];
  REQUIRE(norm.dtype == DType::kF32);
  std::vector<float> values(static_cast<size_t>(norm.shape[0]), 1.0f);
  auto bytes = [&] { return std::span(reinterpret_cast<const std::byte*>(values.data()), values.size() * sizeof(float)); };
  CHECK(outside.outside()->check_vector(index, bytes()).ok());
  values[17] = std::numeric_limits<float>::infinity();
  Status bad = outside.outside()->check_vector(index, bytes());
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::kInvalidCheckpoint);
  CHECK(bad.error().message ==
        "model.safetensors: encoder.final_norm.weight holds inf at element 17; a norm weight or bias that is not finite "
        "makes every output non-finite");
  CHECK_FALSE(outside.outside()->check_vector(index, bytes().first(8)).ok());
  CHECK_FALSE(outside.outside()->check_vector(plan.weights.size(), bytes()).ok());
}

}  // namespace
}  // namespace laya
