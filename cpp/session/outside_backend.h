// A backend outside the engine (the WebGPU one, web/src/webgpu/): the weights live in its memory,
// so the engine keeps only the model's plan from the header, and the batches run by replay
// (outside_runs.h). The outside caller plans each bucket with plan_bucket and checks its copy of
// every vector with check_vector, by the same rules the CPU binding applies.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "engine/bucket_plan.h"
#include "laya/model.h"
#include "safetensors/header.h"
#include "session/forward_backend.h"
#include "session/outside_runs.h"

namespace laya {

class OutsideBackend final : public ForwardBackend {
 public:
  // From a header and the plan made from it (views without data): both graphs are checked as the
  // CPU binding checks them, on the stored form.
  static Result<std::unique_ptr<OutsideBackend>> create(safetensors::Header header, ModelPlan plan);

  const BatchLimits& limits(GraphKind graph) const override {
    return graph == GraphKind::kDecision ? decision_limits_ : embedding_limits_;
  }
  Result<std::vector<DecisionOutput>> decisions(const CheckedBatch& batch) override { return runs_.decisions(batch); }
  Result<std::vector<std::vector<float>>> embeddings(const CheckedBatch& batch) override {
    return runs_.embeddings(batch);
  }
  // The weights are the outside backend's, and so is its arena.
  BackendMemory memory() const override { return {}; }

  OutsideRuns& runs() { return runs_; }
  const safetensors::Header& header() const { return header_; }
  // The graphs, and every tensor as stored with where its bytes are.
  const ModelPlan& plan() const { return plan_; }
  const Graph& graph(GraphKind graph) const { return graph == GraphKind::kDecision ? plan_.decision : plan_.embedding; }
  // A graph planned for `bucket` (plan/bucket.h's bucket_for of a batch's rows).
  Result<BucketPlan> plan_bucket(GraphKind graph, const RowCounts& bucket) const;
  // The outside backend's copy of 1-D weight `index` (norm weight or bias), checked finite as
  // binding checks the engine's own; invalid_checkpoint names the tensor.
  Status check_vector(size_t index, std::span<const std::byte> bytes) const;

 private:
  OutsideBackend(safetensors::Header header, ModelPlan plan);

  safetensors::Header header_;
  ModelPlan plan_;
  OutsideRuns runs_;
  BatchLimits decision_limits_;
  BatchLimits embedding_limits_;
};

}  // namespace laya
