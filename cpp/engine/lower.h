// Lowering: a graph becomes, for one bucket, a list of CPU steps (steps.h) over one arena. The
// graph was checked once (graph/check.h) and the bucket planned once (bucket_plan.h); each op is
// resolved by its step's lower() into offsets, weight pointers and the kernel chosen once from the
// ISA's table, so that a run is a loop over steps that allocates nothing.
#pragma once

#include <memory>
#include <vector>

#include "engine/bucket_plan.h"
#include "engine/steps.h"
#include "graph/check.h"
#include "graph/graph.h"
#include "kernels/compute.h"
#include "kernels/isa.h"
#include "plan/layout.h"
#include "util/status.h"

namespace laya {

// A graph lowered for one bucket. Its arena holds the planner's layout of the values, then the
// kernels' scratch: the region every thread of a step shares (shared_floats, from shared_at, the
// first 64-byte boundary after the values; none under f32 compute), then one region of
// scratch_floats per thread from scratch_at, the next 64-byte boundary.
struct Lowered {
  RowCounts bucket;
  Layout layout;
  std::vector<Step> steps;
  std::vector<std::shared_ptr<const kernels::RopeTable>> rope_tables;  // one per theta, for Rope steps
  size_t scratch_floats = 0;  // per thread: the most any step needs
  size_t shared_floats = 0;   // the most any step needs
  size_t shared_at() const { return (layout.len + 15) / 16 * 16; }
  size_t scratch_at() const { return shared_at() + (shared_floats + 15) / 16 * 16; }
  // The arena this bucket needs with `threads` threads, in floats.
  size_t arena_floats(int threads) const { return scratch_at() + scratch_floats * static_cast<size_t>(threads); }
};

// RoPE tables shared between the buckets of one executor: a bucket reuses a table of its theta that
// covers its positions, so tables exist once per theta and size rather than once per bucket.
using RopeTableCache = LowerContext::RopeTables;

// Lowers a checked graph (check_graph) planned for a bucket (plan_bucket) with the kernels of
// `isa`, the GEMMs as `compute` says. `rope_cache` (optional) supplies tables and receives the ones
// made.
Result<std::unique_ptr<Lowered>> lower(const Graph& graph, const WeightTable& weights, BucketPlan plan,
                                       kernels::Isa isa, RopeTableCache* rope_cache = nullptr,
                                       kernels::Compute compute = kernels::Compute::kF32);

// The same from scratch, for tools and tests: checks the graph, plans the bucket, lowers.
Result<std::unique_ptr<Lowered>> lower(const Graph& graph, const WeightTable& weights,
                                       const RowCounts& bucket, kernels::Isa isa,
                                       RopeTableCache* rope_cache = nullptr,
                                       kernels::Compute compute = kernels::Compute::kF32);

}  // namespace laya
