// Step kinds and the profile's JSON (what each op counts as arithmetic: graph/ops_test.cc).
#include "engine/step_profile.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace laya {
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
