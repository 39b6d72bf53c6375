// The outside backend's model plan and checks (see outside_backend.h).
#include "session/outside_backend.h"

#include <string>

#include "engine/lower.h"

namespace laya {

Result<std::unique_ptr<OutsideBackend>> OutsideBackend::create(safetensors::Header header, ModelPlan plan) {
  LAYA_RETURN_IF_ERROR(check_graph(plan.decision, plan.weights, WeightForm::kPlanned));
  LAYA_RETURN_IF_ERROR(check_graph(plan.embedding, plan.weights, WeightForm::kPlanned));
  return std::unique_ptr<OutsideBackend>(new OutsideBackend(std::move(header), std::move(plan)));
}

// The widths of the outputs come from the checked graphs, as the CPU backend reads them.
OutsideBackend::OutsideBackend(safetensors::Header header, ModelPlan plan)
    : header_(std::move(header)),
      plan_(std::move(plan)),
      runs_(plan_.decision.shape(*plan_.decision.act).width, plan_.embedding.shape(*plan_.embedding.pooled).width),
      decision_limits_(batch_limits(plan_.decision, plan_.weights)),
      embedding_limits_(batch_limits(plan_.embedding, plan_.weights)) {}

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
