// Each op's descriptor (graph.h): the values and weights it uses, the checks of its shapes, and its
// arithmetic. One block per op, in the order of the Op variant.
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <variant>

#include "graph/check.h"
#include "graph/graph.h"

namespace laya {

namespace {

double count(int64_t n) { return static_cast<double>(n); }

// The optional weight as a list of zero or one.
std::vector<WeightId> maybe(std::optional<WeightId> id) { return id ? std::vector<WeightId>{*id} : std::vector<WeightId>{}; }

std::vector<WeightId> both(WeightId a, std::optional<WeightId> b) {
  std::vector<WeightId> out{a};
  if (b) out.push_back(*b);
  return out;
}

// Heads of a fused [q | k | v] value.
int64_t heads_of(const Graph& g, ValueId qkv) { return g.shape(qkv).width / (3 * kHeadDim); }

}  // namespace

namespace ops {

// --- Embed
OpUses Embed::uses() const { return {{}, {out}}; }
OpWeights Embed::weights() const { return {.tables = {table}}; }
Status Embed::check(const Graph& g, const OpChecker& c) const {
  LAYA_RETURN_IF_ERROR(c.rows(out, "out", Rows::kTokens));
  return c.matrix(table, "table", g.shape(out).width).status();
}
double Embed::flops(const Graph&, const BatchRows&) const { return 0; }

// --- LayerNorm
OpUses LayerNorm::uses() const { return {{x}, {out}}; }
OpWeights LayerNorm::weights() const { return {.vectors = both(w, b)}; }
Status LayerNorm::check(const Graph& g, const OpChecker& c) const {
  LAYA_RETURN_IF_ERROR(c.value(x, "x"));
  LAYA_RETURN_IF_ERROR(c.rows(out, "out", g.shape(x).rows));
  const int64_t d = g.shape(x).width;
  LAYA_RETURN_IF_ERROR(c.width(out, "out", d, "as wide as x"));
  LAYA_RETURN_IF_ERROR(c.weight(w, "w", {d}, true).status());
  if (b) LAYA_RETURN_IF_ERROR(c.weight(*b, "b", {d}, true).status());
  if (!std::isfinite(eps) || eps < 0) {
    return c.graph_error("eps is " + std::to_string(eps) + ", expected a finite value >= 0");
  }
  return {};
}
double LayerNorm::flops(const Graph&, const BatchRows&) const { return 0; }

// --- Gemm
OpUses Gemm::uses() const {
  return epilogue == Epilogue::kAccumulate ? OpUses{{a, out}, {out}} : OpUses{{a}, {out}};
}
OpWeights Gemm::weights() const { return {.matrices = {w}, .vectors = maybe(b)}; }
Status Gemm::check(const Graph& g, const OpChecker& c) const {
  LAYA_RETURN_IF_ERROR(c.value(a, "a"));
  LAYA_RETURN_IF_ERROR(c.rows(out, "out", g.shape(a).rows));
  const int64_t k = g.shape(a).width;
  const int64_t n = g.shape(out).width;
  LAYA_ASSIGN_OR_RETURN(const WeightView* wv, c.weight(w, "w", {n, k}, false));
  if (wv->layout == WeightLayout::kPanels8 && n % kPanelRows != 0) {
    return c.graph_error("w '" + wv->name + "' is arranged in panels of " + std::to_string(kPanelRows) +
                         " rows but has " + std::to_string(n));
  }
  if (b) LAYA_RETURN_IF_ERROR(c.weight(*b, "b", {n}, true).status());
  return {};
}
// 2·m·n·k: a multiply and an add per weight per row.
double Gemm::flops(const Graph& g, const BatchRows& batch) const {
  const Shape& in = g.shape(a);
  return 2.0 * count(batch.rows.of(in.rows)) * count(g.shape(out).width) * count(in.width);
}

// --- Rope
OpUses Rope::uses() const { return {{qkv}, {qkv}}; }
OpWeights Rope::weights() const { return {}; }
Status Rope::check(const Graph&, const OpChecker& c) const {
  LAYA_RETURN_IF_ERROR(c.qkv(qkv));
  if (!std::isfinite(theta) || theta <= 0) {
    return c.graph_error("theta is " + std::to_string(theta) + ", expected a finite value > 0");
  }
  return {};
}
double Rope::flops(const Graph&, const BatchRows&) const { return 0; }

// --- Attention
OpUses Attention::uses() const { return {{qkv}, {out}}; }
OpWeights Attention::weights() const { return {}; }
Status Attention::check(const Graph& g, const OpChecker& c) const {
  LAYA_RETURN_IF_ERROR(c.qkv(qkv));
  LAYA_RETURN_IF_ERROR(c.rows(out, "out", Rows::kTokens));
  const int64_t w = g.shape(qkv).width;
  LAYA_RETURN_IF_ERROR(c.width(out, "out", w / 3, "heads · 64 for a qkv of " + std::to_string(w)));
  if (window && *window < 0) return c.graph_error("window is " + std::to_string(*window) + ", expected >= 0");
  return {};
}
// Scores and the weighted sum: 2·64 each per visible (query, key) pair, per head.
double Attention::flops(const Graph& g, const BatchRows& batch) const {
  double pairs = 0;
  for (size_t s = 0; s + 1 < batch.seq_starts.size(); ++s) {
    const int64_t len = batch.seq_starts[s + 1] - batch.seq_starts[s];
    for (int64_t i = 0; i < len; ++i) {
      const int64_t lo = window ? std::max<int64_t>(0, i - *window) : 0;
      const int64_t hi = window ? std::min<int64_t>(len, i + *window + 1) : len;
      pairs += count(hi - lo);
    }
  }
  return 4.0 * count(kHeadDim) * pairs * count(heads_of(g, qkv));
}

// --- GeGlu
OpUses GeGlu::uses() const { return {{x}, {out}}; }
OpWeights GeGlu::weights() const { return {}; }
Status GeGlu::check(const Graph& g, const OpChecker& c) const {
  LAYA_RETURN_IF_ERROR(c.value(x, "x"));
  LAYA_RETURN_IF_ERROR(c.rows(out, "out", g.shape(x).rows));
  return c.width(x, "x", 2 * g.shape(out).width, "twice out's width");
}
double GeGlu::flops(const Graph&, const BatchRows&) const { return 0; }

// --- AddType
OpUses AddType::uses() const { return {{h}, {h}}; }
OpWeights AddType::weights() const { return {.tables = {table}}; }
Status AddType::check(const Graph& g, const OpChecker& c) const {
  LAYA_RETURN_IF_ERROR(c.rows(h, "h", Rows::kTokens));
  return c.matrix(table, "table", g.shape(h).width).status();
}
double AddType::flops(const Graph&, const BatchRows&) const { return 0; }

// --- GatherMarkers
OpUses GatherMarkers::uses() const { return {{h}, {out}}; }
OpWeights GatherMarkers::weights() const { return {}; }
Status GatherMarkers::check(const Graph& g, const OpChecker& c) const {
  LAYA_RETURN_IF_ERROR(c.rows(h, "h", Rows::kTokens));
  LAYA_RETURN_IF_ERROR(c.rows(out, "out", Rows::kMarkers));
  return c.width(out, "out", g.shape(h).width, "as wide as h");
}
double GatherMarkers::flops(const Graph&, const BatchRows&) const { return 0; }

// --- ActFeatures
OpUses ActFeatures::uses() const { return {{h, logits}, {out}}; }
OpWeights ActFeatures::weights() const { return {}; }
Status ActFeatures::check(const Graph& g, const OpChecker& c) const {
  LAYA_RETURN_IF_ERROR(c.rows(h, "h", Rows::kTokens));
  LAYA_RETURN_IF_ERROR(c.rows(logits, "logits", Rows::kMarkers));
  LAYA_RETURN_IF_ERROR(c.rows(out, "out", Rows::kSeqs));
  LAYA_RETURN_IF_ERROR(c.width(logits, "logits", 1, "one logit per marker"));
  return c.width(out, "out", g.shape(h).width + 4, "h's width + 4 features");
}
double ActFeatures::flops(const Graph&, const BatchRows&) const { return 0; }

// --- MeanPool
OpUses MeanPool::uses() const { return {{h}, {out}}; }
OpWeights MeanPool::weights() const { return {}; }
Status MeanPool::check(const Graph& g, const OpChecker& c) const {
  LAYA_RETURN_IF_ERROR(c.rows(h, "h", Rows::kTokens));
  LAYA_RETURN_IF_ERROR(c.rows(out, "out", Rows::kSeqs));
  return c.width(out, "out", g.shape(h).width, "as wide as h");
}
double MeanPool::flops(const Graph&, const BatchRows&) const { return 0; }

}  // namespace ops

// --- Any op: the descriptor of the alternative it holds.
const char* op_name(const Op& op) {
  return std::visit([](const auto& o) { return std::decay_t<decltype(o)>::kName; }, op);
}
OpUses uses(const Op& op) {
  return std::visit([](const auto& o) { return o.uses(); }, op);
}
OpWeights weights_of(const Op& op) {
  return std::visit([](const auto& o) { return o.weights(); }, op);
}
double op_flops(const Op& op, const Graph& graph, const BatchRows& batch) {
  return std::visit([&](const auto& o) { return o.flops(graph, batch); }, op);
}

}  // namespace laya
