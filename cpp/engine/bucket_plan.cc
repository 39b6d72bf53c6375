#include "engine/bucket_plan.h"

#include <algorithm>
#include <limits>
#include <string>
#include <variant>


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

Status check_bucket(const Graph& g, const RowCounts& bucket) {
  constexpr uint64_t kLimit = std::numeric_limits<size_t>::max() / sizeof(float) / 2;
  uint64_t total = 0;
  for (const Shape& s : g.values) {
    const uint64_t rows = static_cast<uint64_t>(bucket.of(s.rows));
    const uint64_t width = static_cast<uint64_t>(s.width);
    if (rows != 0 && width > (kLimit - total) / rows) {
      return out_of_memory("lowering for " + std::to_string(bucket.tokens) + " tokens, " +
                           std::to_string(bucket.seqs) + " sequences and " + std::to_string(bucket.markers) +
                           " markers: the activations need more than " + std::to_string(kLimit * sizeof(float)) +
                           " bytes");
    }
    total += rows * width;
  }
  return {};
}

Result<BucketPlan> plan_bucket(const Graph& graph, const RowCounts& bucket) {
  LAYA_RETURN_IF_ERROR(check_bucket(graph, bucket));
  return BucketPlan{bucket, layout(graph, bucket)};
}

}  // namespace laya
