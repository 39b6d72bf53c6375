// A batch's limits come from its graph, and check_batch is the one check that makes a CheckedBatch.
#include "engine/batch_check.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace laya {
namespace {

// Embed (a vocabulary of 50), AddType (4 types) and, when asked, act features over the markers.
struct Limits {
  Graph g;
  WeightTable w;
  explicit Limits(bool act) {
    w.push_back({"tok", DType::kF32, {50, 8}, nullptr});
    w.push_back({"type", DType::kF32, {4, 8}, nullptr});
    const ValueId h = g.value(Rows::kTokens, 8);
    g.push(ops::Embed{WeightId{0}, h});
    g.push(ops::AddType{h, WeightId{1}});
    if (act) g.push(ops::ActFeatures{h, g.value(Rows::kMarkers, 1), g.value(Rows::kSeqs, 12)});
  }
};

std::string message_of(const Result<CheckedBatch>& r) { return r.ok() ? "" : r.error().message; }

}  // namespace

TEST_CASE("a graph's limits are its embedding table's rows, its type table's rows and whether it reads markers") {
  const BatchLimits decision = batch_limits(Limits(true).g, Limits(true).w);
  CHECK(decision.vocab_size == 50);
  CHECK(decision.type_count == 4);
  CHECK(decision.needs_markers);
  CHECK_FALSE(batch_limits(Limits(false).g, Limits(false).w).needs_markers);
  // A graph that reads no qtype lets any value pass.
  Graph plain;
  WeightTable w;
  w.push_back({"tok", DType::kF32, {7, 8}, nullptr});
  plain.push(ops::Embed{WeightId{0}, plain.value(Rows::kTokens, 8)});
  CHECK(batch_limits(plain, w).type_count == 0);
}

TEST_CASE("a batch passes the check once, and the checked batch refers to it with the limits it passed") {
  const BatchLimits limits{50, 4, true};
  Batch b;
  b.add(std::vector<int32_t>{1, 2, 3}, std::vector<int32_t>{0, 2}, 3);
  b.add(std::vector<int32_t>{4, 5}, std::vector<int32_t>{1}, 0);
  const Result<CheckedBatch> checked = check_batch(b, limits);
  REQUIRE(checked.ok());
  CHECK(&checked.value().batch() == &b);
  CHECK(checked.value().limits().vocab_size == 50);
}

TEST_CASE("a batch outside its limits fails the check, naming the sequence") {
  const BatchLimits limits{50, 4, true};
  Batch no_markers;
  no_markers.add(std::vector<int32_t>{1, 2}, std::vector<int32_t>{0}, 1);
  no_markers.add(std::vector<int32_t>{3}, std::vector<int32_t>{}, 1);
  CHECK(message_of(check_batch(no_markers, limits)) ==
        "invalid batch: sequence 1 has no markers; a decision needs at least one option");
  CHECK(check_batch(no_markers, BatchLimits{50, 4, false}).ok());  // an embedding batch needs none
  Batch bad_type;
  bad_type.add(std::vector<int32_t>{1}, std::vector<int32_t>{0}, 4);
  CHECK(message_of(check_batch(bad_type, limits)).find("sequence 0") != std::string::npos);
  Batch bad_id;
  bad_id.add(std::vector<int32_t>{1, 50}, std::vector<int32_t>{0}, 0);
  CHECK(message_of(check_batch(bad_id, limits)) ==
        "invalid batch: sequence 0 token 1 has id 50, outside the vocabulary [0, 50)");
}

TEST_CASE("one sequence cut from a checked batch is a checked batch of its own ids, markers and qtype") {
  Batch b;
  b.add(std::vector<int32_t>{1, 2, 3}, std::vector<int32_t>{0, 2}, 3);
  b.add(std::vector<int32_t>{4, 5}, std::vector<int32_t>{1}, 2);
  const Result<CheckedBatch> checked = check_batch(b, BatchLimits{50, 4, true});
  REQUIRE(checked.ok());
  Batch alone;
  const CheckedBatch second = checked.value().sequence(1, alone);
  CHECK(&second.batch() == &alone);
  CHECK(alone.ids == std::vector<int32_t>{4, 5});
  CHECK(alone.markers == std::vector<int32_t>{1});
  CHECK(alone.qtypes == std::vector<int32_t>{2});
  // What the cut gives would pass the check by itself.
  CHECK(check_batch(alone, second.limits()).ok());
}

}  // namespace laya
