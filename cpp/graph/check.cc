// Graph checks (see check.h); each op's own check is in graph/ops.cc.
#include "graph/check.h"

#include <cstdint>
#include <string>
#include <variant>

namespace laya {

namespace {

const char* rows_name(Rows rows) {
  switch (rows) {
    case Rows::kTokens: return "token";
    case Rows::kSeqs: return "sequence";
    case Rows::kMarkers: return "marker";
  }
  return "?";
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace

Status OpChecker::value(ValueId v, const char* role) const {
  if (v.index >= g_.values.size()) {
    return graph_error(std::string(role) + " is value " + std::to_string(v.index) + " but the graph has " +
                       std::to_string(g_.values.size()) + " values");
  }
  return {};
}

Status OpChecker::rows(ValueId v, const char* role, Rows want) const {
  LAYA_RETURN_IF_ERROR(value(v, role));
  if (g_.shape(v).rows != want) {
    return graph_error(std::string(role) + " (value " + std::to_string(v.index) + ") has " +
                       rows_name(g_.shape(v).rows) + " rows, expected " + rows_name(want) + " rows");
  }
  return {};
}

Status OpChecker::width(ValueId v, const char* role, int64_t want, const std::string& why) const {
  if (g_.shape(v).width != want) {
    return graph_error(std::string(role) + " (value " + std::to_string(v.index) + ") is " +
                       std::to_string(g_.shape(v).width) + " wide, expected " + std::to_string(want) + " (" + why +
                       ")");
  }
  return {};
}

Status OpChecker::qkv(ValueId v) const {
  LAYA_RETURN_IF_ERROR(rows(v, "qkv", Rows::kTokens));
  const int64_t w = g_.shape(v).width;
  if (w % (3 * kHeadDim) != 0) {
    return graph_error("qkv (value " + std::to_string(v.index) + ") is " + std::to_string(w) +
                       " wide, not 3 · heads · 64");
  }
  return {};
}

Result<const WeightView*> OpChecker::weight(WeightId id, const char* role, const std::vector<int64_t>& want,
                                            bool vector) const {
  LAYA_ASSIGN_OR_RETURN(const WeightView* wv, lookup(id, role));
  if (wv->shape != want) {
    return weight_error(std::string(role) + " '" + wv->name + "' has shape " + shape_text(wv->shape) + ", expected " +
                        shape_text(want));
  }
  if (vector && bound_) {
    // The binder hands vectors over as aligned F32; kernels read them as floats.
    if (wv->dtype != DType::kF32) {
      return internal_error(where_ + ": " + role + " '" + wv->name + "' is " + dtype_name(wv->dtype) +
                            "; vectors must be bound as F32");
    }
    if (reinterpret_cast<uintptr_t>(wv->data) % alignof(float) != 0) {
      return internal_error(where_ + ": " + role + " '" + wv->name + "' is not 4-byte aligned");
    }
  }
  return wv;
}

Result<const WeightView*> OpChecker::matrix(WeightId id, const char* role, int64_t cols) const {
  LAYA_ASSIGN_OR_RETURN(const WeightView* wv, lookup(id, role));
  if (wv->shape.size() != 2 || wv->shape[0] < 1 || wv->shape[1] != cols) {
    return weight_error(std::string(role) + " '" + wv->name + "' has shape " + shape_text(wv->shape) +
                        ", expected [rows >= 1, " + std::to_string(cols) + "]");
  }
  if (wv->layout != WeightLayout::kRows) {
    return internal_error(where_ + ": " + role + " '" + wv->name +
                          "' is arranged in GEMM panels; a lookup table must stay in rows");
  }
  return wv;
}

Result<const WeightView*> OpChecker::lookup(WeightId id, const char* role) const {
  if (id.index >= w_.size()) {
    return graph_error(std::string(role) + " is weight " + std::to_string(id.index) + " but the table has " +
                       std::to_string(w_.size()) + " weights");
  }
  const WeightView& wv = w_[id.index];
  if (!bound_) {
    if (wv.dtype == DType::kI8 && wv.shape.size() != 2) {
      return internal_error(where_ + ": " + role + " '" + wv.name + "' is I8 but not a q8 matrix");
    }
    return &wv;
  }
  if (wv.data == nullptr && wv.elements() > 0) {
    return internal_error(where_ + ": " + role + " '" + wv.name + "' has no data");
  }
  if (wv.dtype == DType::kI8 && (wv.shape.size() != 2 || (wv.scales == nullptr && wv.elements() > 0))) {
    return internal_error(where_ + ": " + role + " '" + wv.name + "' is I8 but not a q8 matrix with scales");
  }
  return &wv;
}

Status check_graph(const Graph& g, const WeightTable& weights, WeightForm form) {
  for (size_t v = 0; v < g.values.size(); ++v) {
    if (g.values[v].width < 1) {
      return internal_error("value " + std::to_string(v) + " is " + std::to_string(g.values[v].width) +
                            " wide, expected at least 1");
    }
  }
  std::vector<bool> written(g.values.size(), false);
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const Op& op = g.ops[i];
    const OpChecker checker(g, weights, form, "op " + std::to_string(i) + " (" + op_name(op) + ")");
    LAYA_RETURN_IF_ERROR(std::visit([&](const auto& o) { return o.check(g, checker); }, op));
    OpUses u = uses(g.ops[i]);
    for (ValueId v : u.reads) {
      if (!written[v.index]) {
        return internal_error("op " + std::to_string(i) + " (" + op_name(g.ops[i]) + ") reads value " +
                              std::to_string(v.index) + " before any op writes it");
      }
    }
    for (ValueId v : u.writes) written[v.index] = true;
  }
  struct Output {
    std::optional<ValueId> v;
    const char* name;
    Rows rows;
  };
  for (const Output& o : {Output{g.logits, "logits", Rows::kMarkers}, Output{g.act, "act", Rows::kSeqs},
                          Output{g.pooled, "pooled", Rows::kSeqs}}) {
    if (!o.v) continue;
    if (o.v->index >= g.values.size() || !written[o.v->index]) {
      return internal_error(std::string("output ") + o.name + " (value " + std::to_string(o.v->index) +
                            ") is not written by any op");
    }
    if (g.shape(*o.v).rows != o.rows) {
      return internal_error(std::string("output ") + o.name + " has " + rows_name(g.shape(*o.v).rows) +
                            " rows, expected " + rows_name(o.rows) + " rows");
    }
  }
  if (g.logits && g.shape(*g.logits).width != 1) {
    return internal_error("output logits is " + std::to_string(g.shape(*g.logits).width) +
                          " wide, expected 1 (one logit per marker)");
  }
  return {};
}

}  // namespace laya
