#include "engine/bucket_plan.h"

#include <algorithm>
#include <limits>
#include <string>
#include <variant>

#include "plan/bucket.h"

namespace laya {

BatchLimits batch_limits(const Graph& graph, const WeightTable& weights) {
  BatchLimits limits;
  limits.vocab_size = std::numeric_limits<int32_t>::max();
  for (const Op& op : graph.ops) {
    if (const auto* embed = std::get_if<ops::Embed>(&op)) {
      limits.vocab_size = std::min(limits.vocab_size, weights[embed->table.index].shape[0]);
    } else if (const auto* add = std::get_if<ops::AddType>(&op)) {
      const int64_t types = weights[add->table.index].shape[0];
      limits.type_count = limits.type_count == 0 ? types : std::min(limits.type_count, types);
    } else if (std::holds_alternative<ops::ActFeatures>(op)) {
      limits.needs_markers = true;
    }
  }
  return limits;
}

Status check_batch(const Batch& batch, const BatchLimits& limits) {
  LAYA_RETURN_IF_ERROR(batch.validate(limits.vocab_size, limits.type_count));
  if (!limits.needs_markers) return {};
  for (int64_t s = 0; s < batch.seqs(); ++s) {
    if (batch.marker_starts[s + 1] == batch.marker_starts[s]) {
      return invalid_request("invalid batch: sequence " + std::to_string(s) +
                             " has no markers, but the graph computes act features over them");
    }
  }
  return {};
}

Result<BucketPlan> plan_bucket(const Graph& graph, const WeightTable& weights, const RowCounts& rows,
                               WeightForm form) {
  const RowCounts bucket = bucket_for(rows);
  LAYA_RETURN_IF_ERROR(check_graph(graph, weights, form));
  LAYA_RETURN_IF_ERROR(check_bucket(graph, bucket));
  return BucketPlan{bucket, layout(graph, bucket)};
}

}  // namespace laya
