// Batch limits from a graph, and the one check of a batch against them (see batch_check.h).
#include "engine/batch_check.h"

#include <algorithm>
#include <limits>
#include <span>
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

Result<CheckedBatch> check_batch(const Batch& batch, const BatchLimits& limits) {
  LAYA_RETURN_IF_ERROR(batch.validate(limits.vocab_size, limits.type_count));
  if (limits.needs_markers) {
    for (int64_t s = 0; s < batch.seqs(); ++s) {
      if (batch.marker_starts[s + 1] == batch.marker_starts[s]) {
        return invalid_request("invalid batch: sequence " + std::to_string(s) +
                               " has no markers; a decision needs at least one option");
      }
    }
  }
  return CheckedBatch(batch, limits);
}

CheckedBatch CheckedBatch::sequence(int64_t s, Batch& alone) const {
  const Batch& b = *batch_;
  alone = Batch();
  alone.add(std::span(b.ids).subspan(b.seq_starts[s], b.seq_starts[s + 1] - b.seq_starts[s]),
            std::span(b.markers).subspan(b.marker_starts[s], b.marker_starts[s + 1] - b.marker_starts[s]),
            b.qtypes[s]);
  // One sequence of a checked batch, with its own ids, markers and qtype: it passes the same check.
  return CheckedBatch(alone, limits_);
}

}  // namespace laya
