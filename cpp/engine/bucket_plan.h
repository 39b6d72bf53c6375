// A graph planned for one bucket, with no backend in it: the graph checked against the weights,
// the bucket checked addressable, and every value given its offset in one arena by the seed's
// planner. The CPU lowering (lower.h) resolves such a plan into kernel calls; a backend whose
// arena is not wasm memory (the WebGPU one, web/src/webgpu/) takes the plan itself.
#pragma once

#include <cstdint>

#include "engine/batch.h"
#include "engine/lower.h"
#include "graph/graph.h"
#include "plan/layout.h"
#include "util/status.h"

namespace laya {

struct BucketPlan {
  RowCounts bucket;
  Layout layout;
};

// What a batch must respect to run on a graph: ids below the embedding table's rows, qtypes below
// the type table's (0: the graph reads none), and a marker in every sequence when the graph
// computes act features over them.
struct BatchLimits {
  int64_t vocab_size = 0;
  int64_t type_count = 0;
  bool needs_markers = false;
};
BatchLimits batch_limits(const Graph& graph, const WeightTable& weights);

// Batch::validate with the limits, then the markers. invalid_request errors naming the sequence.
Status check_batch(const Batch& batch, const BatchLimits& limits);

// Plans `graph` for the bucket of `rows` (plan/bucket.h).
Result<BucketPlan> plan_bucket(const Graph& graph, const WeightTable& weights, const RowCounts& rows,
                               WeightForm form);

}  // namespace laya
