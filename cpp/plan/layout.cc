// The arena planner, ported from the seed's `layout` (seed/plan.rs); see layout.h.
#include "plan/layout.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <utility>

namespace laya {

namespace {

constexpr size_t kNever = std::numeric_limits<size_t>::max();

struct LiveRange {
  size_t first = kNever;  // the first op that touches the value; kNever if none does
  size_t last = 0;        // the last one, or kNever for outputs, which live to the end
};

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

std::vector<LiveRange> live_ranges(const Graph& graph) {
  std::vector<LiveRange> live(graph.values.size());
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    OpUses u = uses(graph.ops[i]);
    for (const auto* list : {&u.reads, &u.writes}) {
      for (ValueId v : *list) {
        LiveRange& l = live[v.index];
        l.first = std::min(l.first, i);
        l.last = std::max(l.last, i);
      }
    }
  }
  for (ValueId v : graph.outputs()) {
    LiveRange& l = live[v.index];
    l.first = std::min(l.first, graph.ops.size());
    l.last = kNever;
  }
  return live;
}

}  // namespace

Layout layout(const Graph& graph, const RowCounts& rows) {
  const size_t n = graph.values.size();
  const std::vector<LiveRange> live = live_ranges(graph);

  Layout out;
  out.offsets.assign(n, 0);
  out.sizes.assign(n, 0);
  std::vector<size_t> order;
  for (size_t v = 0; v < n; ++v) {
    if (live[v].first == kNever) continue;
    const Shape& s = graph.values[v];
    out.sizes[v] = round_up(static_cast<size_t>(rows.of(s.rows)) * static_cast<size_t>(s.width),
                            kLayoutAlign);
    order.push_back(v);
  }
  // Largest first, ties by id, as the seed does: deterministic and tight for chains of equal sizes.
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return out.sizes[a] > out.sizes[b]; });

  std::vector<size_t> placed;
  std::vector<std::pair<size_t, size_t>> taken;
  for (size_t v : order) {
    taken.clear();
    for (size_t u : placed) {
      if (live[u].first <= live[v].last && live[v].first <= live[u].last) {
        taken.emplace_back(out.offsets[u], out.offsets[u] + out.sizes[u]);
      }
    }
    std::sort(taken.begin(), taken.end());
    size_t at = 0;
    for (const auto& [lo, hi] : taken) {
      if (at + out.sizes[v] <= lo) break;
      at = std::max(at, hi);
    }
    out.offsets[v] = at;
    out.len = std::max(out.len, at + out.sizes[v]);
    placed.push_back(v);
  }
  return out;
}

}  // namespace laya
