// The engine end to end on the reference fixtures (tests/data/fixtures/README.md): every logit,
// act logit and pooled value within 1e-4 · max(1, |expected|) of the independent PyTorch
// reference, the same argmax on every input, and all 47 sequences packed in one batch giving the
// same bits as each run alone.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "session/fixture_files.h"
#include "session/wire.h"
#include "util/json.h"

namespace laya {
namespace {

struct Worst {
  double error = 0;
  std::string where;
  void check(const std::vector<float>& got, const json::Value& expected, const std::string& what) {
    REQUIRE(got.size() == expected.items().size());
    for (size_t i = 0; i < got.size(); ++i) {
      // Expected values are f32 written as shortest round-trip doubles: parse as double, cast.
      const float want = static_cast<float>(expected.items()[i].as_double());
      const double err = std::fabs(double(got[i]) - want) / std::max(1.0, std::fabs(double(want)));
      if (err > error) {
        error = err;
        where = what + "[" + std::to_string(i) + "]";
      }
    }
  }
};

size_t argmax(const std::vector<float>& v) { return std::max_element(v.begin(), v.end()) - v.begin(); }
size_t argmax(const json::Value& v) {
  size_t best = 0;
  for (size_t i = 1; i < v.items().size(); ++i) {
    if (v.items()[i].as_double() > v.items()[best].as_double()) best = i;
  }
  return best;
}

void check_fixture(const char* name) {
  const std::string dir = testing::reference_dir(name);
  Session session;
  testing::configure_from(session, dir + "/checkpoint");
  testing::load_weights(session, dir + "/checkpoint");

  auto fixture = json::parse(testing::read_file(dir + "/fixture.json"), "fixture.json");
  REQUIRE(fixture.ok());
  json::Value inputs = json::Value::object({{"inputs", *fixture.value().find("inputs")}});
  auto batches = wire::forward_inputs(inputs);
  REQUIRE(batches.ok());
  const Batch& batch = batches.value().decisions;
  const json::Value& expected = *fixture.value().find("expected");
  REQUIRE(batch.seqs() == static_cast<int64_t>(expected.items().size()));

  auto alone = session.forward_decisions(batch, true);
  auto packed = session.forward_decisions(batch, false);
  REQUIRE(alone.ok());
  REQUIRE(packed.ok());
  Worst worst;
  size_t bit_differences = 0;
  for (int64_t s = 0; s < batch.seqs(); ++s) {
    const json::Value& want = expected.items()[s];
    const auto& got = alone.value()[s];
    worst.check(got.logits, *want.find("logits"), "inputs[" + std::to_string(s) + "].logits");
    worst.check(got.act, *want.find("act"), "inputs[" + std::to_string(s) + "].act");
    CHECK_MESSAGE(argmax(got.logits) == argmax(*want.find("logits")), "argmax of input " << s);
    CHECK_MESSAGE(argmax(got.act) == argmax(*want.find("act")), "act argmax of input " << s);
    if (got.logits != packed.value()[s].logits || got.act != packed.value()[s].act) ++bit_differences;
  }

  // Embeddings: the fixture lists id sequences, encoder only, mean over every token.
  const json::Value& embed_inputs = *fixture.value().find("embed_inputs");
  const json::Value& embed_expected = *fixture.value().find("embed_expected");
  Batch embed_batch;
  for (const json::Value& item : embed_inputs.items()) {
    std::vector<int32_t> ids;
    for (const json::Value& id : item.find("ids")->items()) ids.push_back(static_cast<int32_t>(*id.as_int64()));
    embed_batch.add(ids);
  }
  auto pooled_alone = session.forward_embeddings(embed_batch, true);
  auto pooled_packed = session.forward_embeddings(embed_batch, false);
  REQUIRE(pooled_alone.ok());
  REQUIRE(pooled_packed.ok());
  for (size_t i = 0; i < embed_expected.items().size(); ++i) {
    worst.check(pooled_alone.value()[i], *embed_expected.items()[i].find("pooled"), "embed[" + std::to_string(i) + "]");
    if (pooled_alone.value()[i] != pooled_packed.value()[i]) ++bit_differences;
  }

  std::printf("%s: worst error %.3g at %s; packed vs alone: %zu of %zu outputs differ in any bit\n", name,
              worst.error, worst.where.c_str(), bit_differences,
              static_cast<size_t>(batch.seqs()) + embed_expected.items().size());
  CHECK_MESSAGE(worst.error <= 1e-4, "worst at " << worst.where);
  CHECK(bit_differences == 0);
}

TEST_CASE("tiny-fanin: every output within 1e-4 of the reference, packed bit-identical to alone") {
  check_fixture("tiny-fanin");
}

TEST_CASE("small-fanin: every output within 1e-4 of the reference, packed bit-identical to alone") {
  check_fixture("small-fanin");
}

TEST_CASE("weights arranged as they stream in, in any chunks, or all at finish give the same bits") {
  const std::string dir = testing::reference_dir("small-fanin");
  auto fixture = json::parse(testing::read_file(dir + "/fixture.json"), "fixture.json");
  REQUIRE(fixture.ok());
  auto batches = wire::forward_inputs(json::Value::object({{"inputs", *fixture.value().find("inputs")}}));
  REQUIRE(batches.ok());
  std::vector<std::vector<DecisionOutput>> runs;
  for (size_t chunk : {size_t{0}, size_t{1000}, size_t{65536}}) {
    Session session;
    testing::configure_from(session, dir + "/checkpoint");
    testing::load_weights(session, dir + "/checkpoint", chunk);
    auto out = session.forward_decisions(batches.value().decisions, false);
    REQUIRE(out.ok());
    runs.push_back(std::move(out).value());
  }
  for (size_t r = 1; r < runs.size(); ++r) {
    REQUIRE(runs[r].size() == runs[0].size());
    for (size_t s = 0; s < runs[0].size(); ++s) {
      CHECK(runs[r][s].logits == runs[0][s].logits);
      CHECK(runs[r][s].act == runs[0][s].act);
    }
  }
}

}  // namespace
}  // namespace laya
