// The checks of a graph against its weights, before any bucket: each op's own shape checks (its
// check(), graph/ops.cc) and the graph-wide ones (values written before read, outputs).
#include "graph/check.h"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "graph/tiny_graph.h"

namespace laya {
namespace {

std::string message_of(const Status& s) { return s.ok() ? "" : s.error().message; }

}  // namespace

TEST_CASE("shape errors name the op, the tensor and the numbers") {
  SUBCASE("a GEMM weight whose k is not a's width") {
    testing::TinyGraph f;
    f.w[3].shape = {8, 63};
    const Status s = check_graph(f.g, f.w);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().code == ErrorCode::kInvalidCheckpoint);
    CHECK(message_of(s) == "op 5 (Gemm): w 'wo' has shape [8, 63], expected [8, 64]");
  }
  SUBCASE("a norm weight of the wrong size") {
    testing::TinyGraph f;
    f.w[1].shape = {9};
    CHECK(message_of(check_graph(f.g, f.w)) == "op 1 (LayerNorm): w 'norm' has shape [9], expected [8]");
  }
  SUBCASE("a norm weight not bound as F32") {
    testing::TinyGraph f;
    f.w[1].dtype = DType::kBF16;
    const Status s = check_graph(f.g, f.w);
    CHECK(s.error().code == ErrorCode::kInternal);
    CHECK(message_of(s) == "op 1 (LayerNorm): w 'norm' is BF16; vectors must be bound as F32");
  }
  SUBCASE("an embedding table narrower than its output") {
    testing::TinyGraph f;
    f.w[0].shape = {10, 7};
    CHECK(message_of(check_graph(f.g, f.w)) ==
          "op 0 (Embed): table 'table' has shape [10, 7], expected [rows >= 1, 8]");
  }
  SUBCASE("a qkv that is not 3 · heads · 64 wide") {
    testing::TinyGraph f;
    f.g.values[f.qkv.index].width = 190;
    f.w[2].shape = {190, 8};
    CHECK(message_of(check_graph(f.g, f.w)) == "op 3 (Rope): qkv (value 2) is 190 wide, not 3 · heads · 64");
  }
  SUBCASE("an attention output of the wrong width") {
    testing::TinyGraph f;
    f.g.values[f.o.index].width = 128;
    f.w[3].shape = {8, 128};
    CHECK(message_of(check_graph(f.g, f.w)) ==
          "op 4 (Attention): out (value 3) is 128 wide, expected 64 (heads · 64 for a qkv of 192)");
  }
  SUBCASE("a GeGlu input that is not twice as wide") {
    Graph g;
    WeightTable w;
    std::mt19937 rng(2);
    auto t = testing::random_matrix(rng, DType::kF32, 4, 10);
    w.push_back({"t", DType::kF32, {4, 10}, t.data()});
    ValueId x = g.value(Rows::kTokens, 10);
    ValueId y = g.value(Rows::kTokens, 6);
    g.push(ops::Embed{WeightId{0}, x});
    g.push(ops::GeGlu{x, y});
    CHECK(message_of(check_graph(g, w)) == "op 1 (GeGlu): x (value 0) is 10 wide, expected 12 (twice out's width)");
  }
  SUBCASE("act features whose output is not h + 4 wide") {
    testing::TinyGraph f;
    ValueId logits = f.g.value(Rows::kMarkers, 1);
    ValueId x = f.g.value(Rows::kSeqs, 8);
    ValueId z = f.g.value(Rows::kMarkers, 8);
    f.g.push(ops::GatherMarkers{f.h, z});
    f.g.push(ops::Gemm{z, WeightId{1}, std::nullopt, Epilogue::kNone, logits});
    f.g.push(ops::ActFeatures{f.h, logits, x});
    f.w[1].shape = {1, 8};  // reused as the [1, 8] scorer: then the norm op complains first
    CHECK(message_of(check_graph(f.g, f.w)) == "op 1 (LayerNorm): w 'norm' has shape [1, 8], expected [8]");
    f.w.push_back({"scorer", DType::kF32, {1, 8}, f.w[1].data});
    f.w[1].shape = {8};
    std::get<ops::Gemm>(f.g.ops[8]).w = WeightId{4};
    CHECK(message_of(check_graph(f.g, f.w)) == "op 9 (ActFeatures): out (value 6) is 8 wide, expected 12 (h's width + 4 features)");
  }
  SUBCASE("a weight id past the table") {
    testing::TinyGraph f;
    std::get<ops::Gemm>(f.g.ops[2]).w = WeightId{9};
    CHECK(message_of(check_graph(f.g, f.w)) == "op 2 (Gemm): w is weight 9 but the table has 4 weights");
  }
}

TEST_CASE("a value read before any op writes it is a graph error") {
  testing::TinyGraph f;
  ValueId ghost = f.g.value(Rows::kTokens, 8);
  f.g.ops.insert(f.g.ops.begin() + 1, ops::LayerNorm{ghost, WeightId{1}, std::nullopt, 1e-5, f.n});
  const Status s = check_graph(f.g, f.w);
  CHECK(s.error().code == ErrorCode::kInternal);
  CHECK(message_of(s) == "op 1 (LayerNorm) reads value 5 before any op writes it");
}

TEST_CASE("outputs must be written and have the right rows") {
  testing::TinyGraph f;
  f.g.logits = f.h;  // token rows, not marker rows
  CHECK(message_of(check_graph(f.g, f.w)) == "output logits has token rows, expected marker rows");
  f.g.logits = f.g.value(Rows::kMarkers, 1);
  CHECK(message_of(check_graph(f.g, f.w)) == "output logits (value 5) is not written by any op");
}

}  // namespace laya
