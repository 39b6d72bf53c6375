// The arena planner: every value of a graph gets an offset in one buffer (ported from the seed's
// `layout`, seed/plan.rs). A greedy interval colouring over live ranges: values are placed largest
// first at the lowest offset that fits among the already placed values whose lifetimes overlap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "graph/graph.h"

namespace laya {

// Offsets are multiples of this many f32 elements: 64 bytes, a cache line and a wasm SIMD friendly
// alignment.
inline constexpr size_t kLayoutAlign = 16;

// Values packed into one arena, in f32 elements.
struct Layout {
  std::vector<size_t> offsets;  // where each value starts, indexed like Graph::values
  std::vector<size_t> sizes;    // the space each value holds (rounded up); 0 for unused values
  size_t len = 0;               // the arena's length
};

// Lays the values of `graph` out for the row counts `rows`. A value lives from the first op that
// touches it to the last, and the outputs live to the end, so two values whose lives overlap never
// share space: an op's inputs and outputs never alias unless the op is in place on one value.
// Values no op touches (and that are not outputs) get no space and offset 0.
Layout layout(const Graph& graph, const RowCounts& rows);

}  // namespace laya
