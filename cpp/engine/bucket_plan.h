// A graph planned for one bucket, with no backend in it: the bucket checked addressable and every
// value given its offset in one arena by the seed's planner, once per bucket. The CPU lowering
// (lower.h) resolves such a plan into kernel calls; a backend whose arena is not wasm memory (the
// WebGPU one, web/src/webgpu/) takes the plan itself. The graph is checked once, before any bucket
// (check_graph in graph/check.h).
#pragma once

#include <cstdint>

#include "engine/batch.h"
#include "graph/graph.h"
#include "plan/layout.h"
#include "util/status.h"

namespace laya {

struct BucketPlan {
  RowCounts bucket;
  Layout layout;
};

// Checks that a bucket's activations can be addressed: the planner works in size_t (32 bits in wasm)
// and every offset it makes is at most the sum of all value sizes, so that sum must fit. An
// out_of_memory error otherwise.
Status check_bucket(const Graph& graph, const RowCounts& bucket);

// Plans a checked graph for `bucket` (a bucket already: plan/bucket.h's bucket_for).
Result<BucketPlan> plan_bucket(const Graph& graph, const RowCounts& bucket);

}  // namespace laya
