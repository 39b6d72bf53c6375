// The outside backend's model plan and checks (see outside_backend.h).
#include "session/outside_backend.h"

#include <string>

#include "engine/lower.h"

namespace laya {

Result<std::unique_ptr<OutsideBackend>> OutsideBackend::create(const LayaConfig& config, safetensors::Header header,
                                                               ModelPlan plan) {
  LAYA_RETURN_IF_ERROR(check_graph(plan.decision, plan.weights, WeightForm::kPlanned));
  LAYA_RETURN_IF_ERROR(check_graph(plan.embedding, plan.weights, WeightForm::kPlanned));
  const BatchLimits decision = batch_limits(plan.decision, plan.weights);
  const BatchLimits embedding = batch_limits(plan.embedding, plan.weights);
  std::unique_ptr<OutsideBackend> backend(new OutsideBackend(
      std::move(header), std::move(plan), OutsideRuns(config.act_outputs(), config.encoder.hidden_size)));
  backend->decision_limits_ = decision;
  backend->embedding_limits_ = embedding;
  return backend;
}

Result<BucketPlan> OutsideBackend::plan_bucket(GraphKind graph, const RowCounts& bucket) const {
  // The graphs were checked at create.
  return laya::plan_bucket(this->graph(graph), bucket);
}

Status OutsideBackend::check_vector(size_t index, std::span<const std::byte> bytes) const {
  if (index >= plan_.weights.size()) {
    return invalid_request("outsideCheckVector: there is no weight " + std::to_string(index));
  }
  return laya::check_vector(plan_.weights[index], bytes);
}

}  // namespace laya
