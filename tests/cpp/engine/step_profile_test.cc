// Step kinds, the arithmetic counted per step, and the profile's JSON.
#include "engine/step_profile.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace laya {
namespace {

kernels::Packing packing_of(const std::vector<int32_t>& seq_starts) {
  kernels::Packing p;
  p.seq_starts = seq_starts.data();
  p.seqs = static_cast<int64_t>(seq_starts.size()) - 1;
  return p;
}

}  // namespace

TEST_CASE("every step kind has its own name, in the order of the Step variant") {
  struct Named {
    Step step;
    std::string name;
  };
  const std::vector<Named> expected = {
      {steps::Embed{}, "embed"},
      {steps::LayerNorm{}, "layer_norm"},
      {steps::Gemm{}, "gemm"},
      {steps::Rope{}, "rope"},
      {steps::Attention{}, "attention"},
      {steps::GeGlu{}, "geglu"},
      {steps::AddType{}, "add_type"},
      {steps::GatherMarkers{}, "gather_markers"},
      {steps::ActFeatures{}, "act_features"},
      {steps::MeanPool{}, "mean_pool"},
  };
  // A step added to the variant must be added here too.
  REQUIRE(expected.size() == StepProfile::kKinds);
  for (size_t k = 0; k < expected.size(); ++k) {
    CAPTURE(k);
    CHECK(expected[k].step.index() == k);
    CHECK(std::string(StepProfile::kind_name(k)) == expected[k].name);
  }
  CHECK(std::string(StepProfile::kind_name(StepProfile::kKinds)) == "?");
}

TEST_CASE("a GEMM counts two flops per multiply-add over the rows it runs on") {
  steps::Gemm g;
  g.rows = Rows::kMarkers;
  g.w.rows = 7;
  g.w.cols = 5;
  RowCounts rows;
  rows.tokens = 100;
  rows.markers = 3;
  const std::vector<int32_t> starts = {0, 100};
  CHECK(step_flops(g, rows, packing_of(starts)) == 2.0 * 3 * 7 * 5);
}

TEST_CASE("attention counts only the keys inside each query's window") {
  steps::Attention a;
  a.heads = 2;
  const std::vector<int32_t> starts = {0, 4, 5};  // sequences of 4 and 1 tokens
  RowCounts rows;
  a.window = 1;
  // Sequence of 4 with |i - j| <= 1: 2 + 3 + 3 + 2 pairs; the single token sees itself.
  CHECK(step_flops(a, rows, packing_of(starts)) == 4.0 * 64 * (10 + 1) * 2);
  a.window = -1;
  CHECK(step_flops(a, rows, packing_of(starts)) == 4.0 * 64 * (16 + 1) * 2);
}

TEST_CASE("steps other than GEMM and attention count no arithmetic") {
  const std::vector<int32_t> starts = {0, 3};
  const std::vector<Step> others = {steps::Embed{}, steps::LayerNorm{},     steps::Rope{},        steps::GeGlu{},
                                    steps::AddType{}, steps::GatherMarkers{}, steps::ActFeatures{}, steps::MeanPool{}};
  // Every kind but the two that count.
  REQUIRE(others.size() == StepProfile::kKinds - 2);
  for (const Step& s : others) {
    CAPTURE(StepProfile::kind_name(s.index()));
    CHECK(step_flops(s, RowCounts{3, 1, 1}, packing_of(starts)) == 0.0);
  }
}

TEST_CASE("the JSON lists the kinds that ran, with calls, milliseconds and GFLOP") {
  StepProfile p;
  p.runs = 2;
  const size_t gemm = Step(steps::Gemm{}).index();
  p.calls[gemm] = 4;
  p.seconds[gemm] = 0.0125;
  p.flops[gemm] = 3e9;
  StepProfile q;
  q.runs = 1;
  q.calls[gemm] = 1;
  q.seconds[gemm] = 0.0025;
  p += q;
  CHECK(p.to_json() == R"({"runs":3,"steps":[{"kind":"gemm","calls":5,"ms":15.000,"gflop":3.000000}]})");
}

}  // namespace laya
