// A batch is checked once, where it enters the engine, and the runners take only checked batches:
// CheckedBatch can be made only by check_batch (or cut from one that was), so a backend's run
// cannot be handed an unchecked batch and has no reason to check it again.
#pragma once

#include <cstdint>

#include "engine/batch.h"
#include "graph/graph.h"
#include "util/status.h"

namespace laya {

// What a batch must respect to run on a graph: ids below the embedding table's rows, qtypes below
// the type table's (0: the graph reads none), and a marker in every sequence when the graph
// computes act features over them.
struct BatchLimits {
  int64_t vocab_size = 0;
  int64_t type_count = 0;
  bool needs_markers = false;
};
BatchLimits batch_limits(const Graph& graph, const WeightTable& weights);

// A batch that passed check_batch for some limits. It refers to the batch, which must outlive it
// and stay unchanged.
class CheckedBatch {
 public:
  const Batch& batch() const { return *batch_; }
  const BatchLimits& limits() const { return limits_; }
  // Sequence `s` alone, as a batch of one: the caller keeps `alone` alive while using the result.
  CheckedBatch sequence(int64_t s, Batch& alone) const;

 private:
  friend Result<CheckedBatch> check_batch(const Batch& batch, const BatchLimits& limits);
  CheckedBatch(const Batch& batch, const BatchLimits& limits) : batch_(&batch), limits_(limits) {}
  const Batch* batch_;
  BatchLimits limits_;
};

// Batch::validate with the limits, then the markers. invalid_request errors naming the sequence.
Result<CheckedBatch> check_batch(const Batch& batch, const BatchLimits& limits);

}  // namespace laya
