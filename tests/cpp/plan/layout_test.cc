#include "plan/layout.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace laya {
namespace {

size_t round_up(size_t n) { return (n + kLayoutAlign - 1) / kLayoutAlign * kLayoutAlign; }

// The live range of every value, computed here independently of the planner.
struct Live {
  size_t first = std::numeric_limits<size_t>::max();
  size_t last = 0;
  bool used() const { return first != std::numeric_limits<size_t>::max(); }
};

std::vector<Live> live_of(const Graph& g) {
  std::vector<Live> live(g.values.size());
  for (size_t i = 0; i < g.ops.size(); ++i) {
    OpUses u = uses(g.ops[i]);
    for (auto list : {u.reads, u.writes}) {
      for (ValueId v : list) {
        live[v.index].first = std::min(live[v.index].first, i);
        live[v.index].last = std::max(live[v.index].last, i);
      }
    }
  }
  for (ValueId v : g.outputs()) {
    live[v.index].first = std::min(live[v.index].first, g.ops.size());
    live[v.index].last = std::numeric_limits<size_t>::max();
  }
  return live;
}

Graph chain(int64_t width, int steps) {
  Graph g;
  ValueId x = g.value(Rows::kTokens, width);
  g.push(ops::Embed{WeightId{0}, x});
  for (int i = 0; i < steps; ++i) {
    ValueId y = g.value(Rows::kTokens, width);
    g.push(ops::LayerNorm{x, WeightId{1}, std::nullopt, 1e-5, y});
    x = y;
  }
  g.logits = x;
  return g;
}

// Checks the planner's contract on one graph; returns the number of failed checks for the caller's
// message (CHECKs inside report the details).
void check_contract(const Graph& g, const RowCounts& rows, const Layout& l) {
  const std::vector<Live> live = live_of(g);
  REQUIRE(l.offsets.size() == g.values.size());
  for (size_t u = 0; u < g.values.size(); ++u) {
    const size_t su = static_cast<size_t>(rows.of(g.values[u].rows) * g.values[u].width);
    if (!live[u].used()) continue;
    CHECK(l.offsets[u] % kLayoutAlign == 0);
    CHECK(l.offsets[u] + su <= l.len);
    for (size_t v = 0; v < u; ++v) {
      if (!live[v].used()) continue;
      const size_t sv = static_cast<size_t>(rows.of(g.values[v].rows) * g.values[v].width);
      const bool time = live[u].first <= live[v].last && live[v].first <= live[u].last;
      const bool space = l.offsets[u] < l.offsets[v] + sv && l.offsets[v] < l.offsets[u] + su;
      if (time && space) FAIL_CHECK("values " << u << " and " << v << " overlap");
    }
  }
}

}  // namespace

TEST_CASE("a chain needs two buffers") {
  Graph g = chain(10, 20);
  Layout l = layout(g, RowCounts{7, 7, 7});
  const size_t one = round_up(7 * 10);
  CHECK(l.len == 2 * one);
  for (size_t i = 1; i < g.ops.size(); ++i) {
    const auto& ln = std::get<ops::LayerNorm>(g.ops[i]);
    CHECK_MESSAGE(l.offsets[ln.x.index] != l.offsets[ln.out.index], "op " << i << " aliases");
  }
}

TEST_CASE("live values never overlap") {
  // A residual stream that lives throughout, with temporaries of several sizes around it.
  Graph g;
  ValueId h = g.value(Rows::kTokens, 8);
  g.push(ops::Embed{WeightId{0}, h});
  for (int i = 0; i < 6; ++i) {
    ValueId a = g.value(Rows::kTokens, 8 * (i % 3 + 1));
    ValueId b = g.value(Rows::kSeqs, 3);
    g.push(ops::Gemm{h, WeightId{0}, std::nullopt, Epilogue::kNone, a});
    g.push(ops::GatherMarkers{a, b});
    g.push(ops::Gemm{a, WeightId{0}, std::nullopt, Epilogue::kAccumulate, h});
  }
  g.act = h;
  const RowCounts rows{33, 5, 9};
  Layout l = layout(g, rows);
  check_contract(g, rows, l);
  size_t total = 0;
  for (const Shape& s : g.values) total += static_cast<size_t>(rows.of(s.rows) * s.width);
  CHECK(l.len < total);
}

TEST_CASE("values no op touches get no space") {
  Graph g;
  ValueId unused_big = g.value(Rows::kTokens, 4096);
  ValueId x = g.value(Rows::kTokens, 4);
  g.push(ops::Embed{WeightId{0}, x});
  ValueId unused_small = g.value(Rows::kSeqs, 1);
  ValueId y = g.value(Rows::kTokens, 4);
  g.push(ops::LayerNorm{x, WeightId{1}, std::nullopt, 1e-5, y});
  g.pooled = y;
  Layout l = layout(g, RowCounts{16, 2, 2});
  CHECK(l.sizes[unused_big.index] == 0);
  CHECK(l.sizes[unused_small.index] == 0);
  CHECK(l.len == 2 * round_up(16 * 4));
}

TEST_CASE("outputs outlive every op, so nothing later takes their space") {
  Graph g;
  ValueId h = g.value(Rows::kTokens, 16);
  g.push(ops::Embed{WeightId{0}, h});
  ValueId pooled = g.value(Rows::kSeqs, 16);
  g.push(ops::MeanPool{h, pooled});
  ValueId t = g.value(Rows::kTokens, 16);
  g.push(ops::LayerNorm{h, WeightId{1}, std::nullopt, 1e-5, t});
  ValueId act = g.value(Rows::kSeqs, 16);
  g.push(ops::MeanPool{t, act});
  g.pooled = pooled;
  g.act = act;
  const RowCounts rows{32, 4, 1};
  Layout l = layout(g, rows);
  check_contract(g, rows, l);
  const size_t p0 = l.offsets[pooled.index];
  const size_t p1 = p0 + l.sizes[pooled.index];
  const size_t t0 = l.offsets[t.index];
  CHECK((t0 >= p1 || t0 + l.sizes[t.index] <= p0));
}

TEST_CASE("random graphs: live values never overlap, all fit in the arena, in-place ops keep one value") {
  std::mt19937 rng(20240611);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  const Rows kinds[] = {Rows::kTokens, Rows::kSeqs, Rows::kMarkers};
  for (int trial = 0; trial < 300; ++trial) {
    Graph g;
    std::vector<ValueId> written;
    auto fresh = [&]() { return g.value(kinds[pick(0, 2)], pick(1, 70)); };
    ValueId first = fresh();
    g.push(ops::Embed{WeightId{0}, first});
    written.push_back(first);
    const int n_ops = static_cast<int>(pick(1, 40));
    for (int i = 0; i < n_ops; ++i) {
      if (pick(0, 5) == 0) fresh();  // a value nothing uses
      ValueId a = written[pick(0, static_cast<int64_t>(written.size()) - 1)];
      ValueId b = written[pick(0, static_cast<int64_t>(written.size()) - 1)];
      switch (pick(0, 5)) {
        case 0: {
          ValueId out = fresh();
          g.push(ops::Gemm{a, WeightId{0}, std::nullopt, Epilogue::kNone, out});
          written.push_back(out);
          break;
        }
        case 1: g.push(ops::Gemm{a, WeightId{0}, std::nullopt, Epilogue::kAccumulate, b}); break;
        case 2: g.push(ops::Rope{a, 10000.0}); break;
        case 3: g.push(ops::AddType{a, WeightId{0}}); break;
        case 4: {
          ValueId out = fresh();
          g.push(ops::ActFeatures{a, b, out});
          written.push_back(out);
          break;
        }
        default: {
          ValueId out = fresh();
          g.push(ops::LayerNorm{a, WeightId{1}, std::nullopt, 1e-5, out});
          written.push_back(out);
          break;
        }
      }
    }
    g.logits = written[pick(0, static_cast<int64_t>(written.size()) - 1)];
    if (pick(0, 1)) g.pooled = written[pick(0, static_cast<int64_t>(written.size()) - 1)];
    const RowCounts rows{pick(0, 300), pick(0, 20), pick(0, 40)};
    INFO("trial " << trial);
    Layout l = layout(g, rows);
    check_contract(g, rows, l);
    // An op's distinct values never alias; an in-place op lists one value, so it stays in place.
    for (size_t i = 0; i < g.ops.size(); ++i) {
      OpUses u = uses(g.ops[i]);
      std::vector<ValueId> all = u.reads;
      all.insert(all.end(), u.writes.begin(), u.writes.end());
      for (ValueId x : all) {
        for (ValueId y : all) {
          if (x == y) continue;
          const size_t sx = static_cast<size_t>(rows.of(g.shape(x).rows) * g.shape(x).width);
          const size_t sy = static_cast<size_t>(rows.of(g.shape(y).rows) * g.shape(y).width);
          const bool space = l.offsets[x.index] < l.offsets[y.index] + sy &&
                             l.offsets[y.index] < l.offsets[x.index] + sx;
          if (space) FAIL_CHECK("op " << i << " aliases values " << x.index << " and " << y.index);
        }
      }
    }
    // Unused values take no space.
    const std::vector<Live> live = live_of(g);
    for (size_t v = 0; v < g.values.size(); ++v) {
      if (!live[v].used()) CHECK(l.sizes[v] == 0);
    }
  }
}

}  // namespace laya
