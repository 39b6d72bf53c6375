// Each op's descriptor: its name, the values and weights it uses, and the arithmetic it counts.
// (Each op's checks are exercised through check_graph in graph/check_test.cc.)
#include "graph/graph.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace laya {
namespace {

bool same(const std::vector<ValueId>& a, const std::vector<ValueId>& b) { return a == b; }
std::vector<uint32_t> indices(const std::vector<WeightId>& ids) {
  std::vector<uint32_t> out;
  for (WeightId id : ids) out.push_back(id.index);
  return out;
}

}  // namespace

TEST_CASE("every op is named by its descriptor, in the order of the Op variant") {
  const std::vector<std::pair<Op, std::string>> expected = {
      {ops::Embed{}, "Embed"},         {ops::LayerNorm{}, "LayerNorm"},
      {ops::Gemm{}, "Gemm"},           {ops::Rope{}, "Rope"},
      {ops::Attention{}, "Attention"}, {ops::GeGlu{}, "GeGlu"},
      {ops::AddType{}, "AddType"},     {ops::GatherMarkers{}, "GatherMarkers"},
      {ops::ActFeatures{}, "ActFeatures"}, {ops::MeanPool{}, "MeanPool"},
  };
  REQUIRE(expected.size() == std::variant_size_v<Op>);  // an op added to the variant must be added here
  for (size_t k = 0; k < expected.size(); ++k) {
    CHECK(expected[k].first.index() == k);
    CHECK(std::string(op_name(expected[k].first)) == expected[k].second);
  }
}

TEST_CASE("a GEMM reads what it accumulates into, and in-place ops read and write one value") {
  const ValueId a{1}, out{2};
  const Op plain = ops::Gemm{a, WeightId{0}, std::nullopt, Epilogue::kGelu, out};
  const Op residual = ops::Gemm{a, WeightId{0}, std::nullopt, Epilogue::kAccumulate, out};
  CHECK(same(uses(plain).reads, {a}));
  CHECK(same(uses(residual).reads, {a, out}));
  CHECK(same(uses(residual).writes, {out}));
  const Op rope = ops::Rope{ValueId{3}, 10000.0};
  CHECK(same(uses(rope).reads, {ValueId{3}}));
  CHECK(same(uses(rope).writes, {ValueId{3}}));
  const Op add = ops::AddType{ValueId{4}, WeightId{9}};
  CHECK(same(uses(add).reads, uses(add).writes));
  const Op act = ops::ActFeatures{ValueId{1}, ValueId{2}, ValueId{3}};
  CHECK(same(uses(act).reads, {ValueId{1}, ValueId{2}}));
}

TEST_CASE("an op's weights are sorted by how it reads them: GEMM matrices, lookup tables, vectors") {
  const OpWeights gemm = weights_of(ops::Gemm{ValueId{0}, WeightId{5}, WeightId{6}, Epilogue::kNone, ValueId{1}});
  CHECK(indices(gemm.matrices) == std::vector<uint32_t>{5});
  CHECK(indices(gemm.vectors) == std::vector<uint32_t>{6});
  CHECK(gemm.tables.empty());
  const OpWeights embed = weights_of(ops::Embed{WeightId{2}, ValueId{0}});
  CHECK(indices(embed.tables) == std::vector<uint32_t>{2});
  CHECK(embed.matrices.empty());
  const OpWeights norm = weights_of(ops::LayerNorm{ValueId{0}, WeightId{3}, std::nullopt, 1e-5, ValueId{1}});
  CHECK(indices(norm.vectors) == std::vector<uint32_t>{3});
  CHECK(weights_of(ops::AddType{ValueId{0}, WeightId{7}}).tables.size() == 1);
  CHECK(weights_of(ops::Attention{}).matrices.empty());
}

TEST_CASE("a GEMM counts two flops per multiply-add over the rows it runs on") {
  Graph g;
  const ValueId a = g.value(Rows::kMarkers, 5);
  const ValueId out = g.value(Rows::kMarkers, 7);
  const Op gemm = ops::Gemm{a, WeightId{0}, std::nullopt, Epilogue::kNone, out};
  const std::vector<int32_t> starts = {0, 100};
  CHECK(op_flops(gemm, g, {RowCounts{100, 1, 3}, starts}) == 2.0 * 3 * 7 * 5);
}

TEST_CASE("attention counts only the keys inside each query's window") {
  Graph g;
  const ValueId qkv = g.value(Rows::kTokens, 2 * 3 * kHeadDim);  // two heads
  const ValueId out = g.value(Rows::kTokens, 2 * kHeadDim);
  const std::vector<int32_t> starts = {0, 4, 5};  // sequences of 4 and 1 tokens
  const BatchRows batch{RowCounts{5, 2, 0}, starts};
  // Sequence of 4 with |i - j| <= 1: 2 + 3 + 3 + 2 pairs; the single token sees itself.
  CHECK(op_flops(ops::Attention{qkv, 1, out}, g, batch) == 4.0 * 64 * (10 + 1) * 2);
  CHECK(op_flops(ops::Attention{qkv, std::nullopt, out}, g, batch) == 4.0 * 64 * (16 + 1) * 2);
}

TEST_CASE("ops other than GEMM and attention count no arithmetic") {
  Graph g;
  const ValueId h = g.value(Rows::kTokens, 8);
  const std::vector<int32_t> starts = {0, 3};
  const BatchRows batch{RowCounts{3, 1, 1}, starts};
  const std::vector<Op> others = {ops::Embed{WeightId{0}, h},  ops::LayerNorm{h, WeightId{0}, std::nullopt, 1e-5, h},
                                  ops::Rope{h, 10000.0},        ops::GeGlu{h, h},
                                  ops::AddType{h, WeightId{0}}, ops::GatherMarkers{h, h},
                                  ops::ActFeatures{h, h, h},    ops::MeanPool{h, h}};
  REQUIRE(others.size() == std::variant_size_v<Op> - 2);  // every op but the two that count
  for (const Op& op : others) {
    CAPTURE(op_name(op));
    CHECK(op_flops(op, g, batch) == 0.0);
  }
}

}  // namespace laya
