// Graph checks and lowering to steps (see lower.h).
#include "engine/lower.h"
#include "util/overloaded.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace laya {

namespace {

const char* op_kind(const Op& op) {
  return std::visit(Overloaded{
                        [](const ops::Embed&) { return "Embed"; },
                        [](const ops::LayerNorm&) { return "LayerNorm"; },
                        [](const ops::Gemm&) { return "Gemm"; },
                        [](const ops::Rope&) { return "Rope"; },
                        [](const ops::Attention&) { return "Attention"; },
                        [](const ops::GeGlu&) { return "GeGlu"; },
                        [](const ops::AddType&) { return "AddType"; },
                        [](const ops::GatherMarkers&) { return "GatherMarkers"; },
                        [](const ops::ActFeatures&) { return "ActFeatures"; },
                        [](const ops::MeanPool&) { return "MeanPool"; },
                    },
                    op);
}

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

// Checks one op; `where` is "op 12 (Gemm)".
class OpChecker {
 public:
  OpChecker(const Graph& g, const WeightTable& w, WeightForm form, std::string where)
      : g_(g), w_(w), bound_(form == WeightForm::kBound), where_(std::move(where)) {}

  Error graph_error(const std::string& what) const { return internal_error(where_ + ": " + what); }
  Error weight_error(const std::string& what) const { return invalid_checkpoint(where_ + ": " + what); }

  Status value(ValueId v, const char* role) const {
    if (v.index >= g_.values.size()) {
      return graph_error(std::string(role) + " is value " + std::to_string(v.index) + " but the graph has " +
                         std::to_string(g_.values.size()) + " values");
    }
    return {};
  }
  Status rows(ValueId v, const char* role, Rows want) const {
    LAYA_RETURN_IF_ERROR(value(v, role));
    if (g_.shape(v).rows != want) {
      return graph_error(std::string(role) + " (value " + std::to_string(v.index) + ") has " +
                         rows_name(g_.shape(v).rows) + " rows, expected " + rows_name(want) + " rows");
    }
    return {};
  }
  Status width(ValueId v, const char* role, int64_t want, const std::string& why) const {
    if (g_.shape(v).width != want) {
      return graph_error(std::string(role) + " (value " + std::to_string(v.index) + ") is " +
                         std::to_string(g_.shape(v).width) + " wide, expected " + std::to_string(want) +
                         " (" + why + ")");
    }
    return {};
  }
  // A weight of exactly `want` dims; for vectors (`vector`), also F32 (the binder converts them).
  Result<const WeightView*> weight(WeightId id, const char* role, const std::vector<int64_t>& want,
                                   bool vector) const {
    LAYA_ASSIGN_OR_RETURN(const WeightView* wv, lookup(id, role));
    if (wv->shape != want) {
      return weight_error(std::string(role) + " '" + wv->name + "' has shape " + shape_text(wv->shape) +
                          ", expected " + shape_text(want));
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
  // A matrix with `cols` columns and at least one row (a lookup table: its rows are ids, so it is
  // stored in rows).
  Result<const WeightView*> matrix(WeightId id, const char* role, int64_t cols) const {
    LAYA_ASSIGN_OR_RETURN(const WeightView* wv, lookup(id, role));
    if (wv->shape.size() != 2 || wv->shape[0] < 1 || wv->shape[1] != cols) {
      return weight_error(std::string(role) + " '" + wv->name + "' has shape " + shape_text(wv->shape) +
                          ", expected [rows >= 1, " + std::to_string(cols) + "]");
    }
    if (wv->layout != WeightLayout::kRows) {
      return internal_error(where_ + ": " + role + " '" + wv->name + "' is arranged in GEMM panels; a lookup table must stay in rows");
    }
    return wv;
  }

 private:
  // The weight `id` names, with data unless it is empty.
  Result<const WeightView*> lookup(WeightId id, const char* role) const {
    if (id.index >= w_.size()) {
      return graph_error(std::string(role) + " is weight " + std::to_string(id.index) +
                         " but the table has " + std::to_string(w_.size()) + " weights");
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

  const Graph& g_;
  const WeightTable& w_;
  bool bound_;
  std::string where_;
};

Status check_op(const Graph& g, const WeightTable& weights, WeightForm form, size_t index) {
  const Op& op = g.ops[index];
  const OpChecker c(g, weights, form, "op " + std::to_string(index) + " (" + op_kind(op) + ")");
  return std::visit(
      Overloaded{
          [&](const ops::Embed& o) -> Status {
            LAYA_RETURN_IF_ERROR(c.rows(o.out, "out", Rows::kTokens));
            return c.matrix(o.table, "table", g.shape(o.out).width).status();
          },
          [&](const ops::LayerNorm& o) -> Status {
            LAYA_RETURN_IF_ERROR(c.value(o.x, "x"));
            LAYA_RETURN_IF_ERROR(c.rows(o.out, "out", g.shape(o.x).rows));
            const int64_t d = g.shape(o.x).width;
            LAYA_RETURN_IF_ERROR(c.width(o.out, "out", d, "as wide as x"));
            LAYA_RETURN_IF_ERROR(c.weight(o.w, "w", {d}, true).status());
            if (o.b) LAYA_RETURN_IF_ERROR(c.weight(*o.b, "b", {d}, true).status());
            if (!std::isfinite(o.eps) || o.eps < 0) {
              return c.graph_error("eps is " + std::to_string(o.eps) + ", expected a finite value >= 0");
            }
            return {};
          },
          [&](const ops::Gemm& o) -> Status {
            LAYA_RETURN_IF_ERROR(c.value(o.a, "a"));
            LAYA_RETURN_IF_ERROR(c.rows(o.out, "out", g.shape(o.a).rows));
            const int64_t k = g.shape(o.a).width;
            const int64_t n = g.shape(o.out).width;
            LAYA_ASSIGN_OR_RETURN(const WeightView* w, c.weight(o.w, "w", {n, k}, false));
            if (w->layout == WeightLayout::kPanels8 && n % kPanelRows != 0) {
              return c.graph_error("w '" + w->name + "' is arranged in panels of " + std::to_string(kPanelRows) +
                                   " rows but has " + std::to_string(n));
            }
            if (o.b) LAYA_RETURN_IF_ERROR(c.weight(*o.b, "b", {n}, true).status());
            return {};
          },
          [&](const ops::Rope& o) -> Status {
            LAYA_RETURN_IF_ERROR(c.rows(o.qkv, "qkv", Rows::kTokens));
            const int64_t w = g.shape(o.qkv).width;
            if (w % (3 * kernels::kHeadDim) != 0) {
              return c.graph_error("qkv (value " + std::to_string(o.qkv.index) + ") is " + std::to_string(w) +
                                   " wide, not 3 · heads · 64");
            }
            if (!std::isfinite(o.theta) || o.theta <= 0) {
              return c.graph_error("theta is " + std::to_string(o.theta) + ", expected a finite value > 0");
            }
            return {};
          },
          [&](const ops::Attention& o) -> Status {
            LAYA_RETURN_IF_ERROR(c.rows(o.qkv, "qkv", Rows::kTokens));
            LAYA_RETURN_IF_ERROR(c.rows(o.out, "out", Rows::kTokens));
            const int64_t w = g.shape(o.qkv).width;
            if (w % (3 * kernels::kHeadDim) != 0) {
              return c.graph_error("qkv (value " + std::to_string(o.qkv.index) + ") is " + std::to_string(w) +
                                   " wide, not 3 · heads · 64");
            }
            LAYA_RETURN_IF_ERROR(c.width(o.out, "out", w / 3, "heads · 64 for a qkv of " + std::to_string(w)));
            if (o.window && *o.window < 0) {
              return c.graph_error("window is " + std::to_string(*o.window) + ", expected >= 0");
            }
            return {};
          },
          [&](const ops::GeGlu& o) -> Status {
            LAYA_RETURN_IF_ERROR(c.value(o.x, "x"));
            LAYA_RETURN_IF_ERROR(c.rows(o.out, "out", g.shape(o.x).rows));
            return c.width(o.x, "x", 2 * g.shape(o.out).width, "twice out's width");
          },
          [&](const ops::AddType& o) -> Status {
            LAYA_RETURN_IF_ERROR(c.rows(o.h, "h", Rows::kTokens));
            return c.matrix(o.table, "table", g.shape(o.h).width).status();
          },
          [&](const ops::GatherMarkers& o) -> Status {
            LAYA_RETURN_IF_ERROR(c.rows(o.h, "h", Rows::kTokens));
            LAYA_RETURN_IF_ERROR(c.rows(o.out, "out", Rows::kMarkers));
            return c.width(o.out, "out", g.shape(o.h).width, "as wide as h");
          },
          [&](const ops::ActFeatures& o) -> Status {
            LAYA_RETURN_IF_ERROR(c.rows(o.h, "h", Rows::kTokens));
            LAYA_RETURN_IF_ERROR(c.rows(o.logits, "logits", Rows::kMarkers));
            LAYA_RETURN_IF_ERROR(c.rows(o.out, "out", Rows::kSeqs));
            LAYA_RETURN_IF_ERROR(c.width(o.logits, "logits", 1, "one logit per marker"));
            return c.width(o.out, "out", g.shape(o.h).width + 4, "h's width + 4 features");
          },
          [&](const ops::MeanPool& o) -> Status {
            LAYA_RETURN_IF_ERROR(c.rows(o.h, "h", Rows::kTokens));
            LAYA_RETURN_IF_ERROR(c.rows(o.out, "out", Rows::kSeqs));
            return c.width(o.out, "out", g.shape(o.h).width, "as wide as h");
          },
      },
      op);
}

kernels::MatrixRef matrix_ref(const WeightView& w) {
  return {w.data, w.dtype, w.shape[0], w.shape[1], w.layout, w.scales};
}

const float* vector_data(const WeightTable& weights, std::optional<WeightId> id) {
  return id ? reinterpret_cast<const float*>(weights[id->index].data) : nullptr;
}

}  // namespace

const char* kernel_name(const Step& step) {
  return std::visit([](const auto& s) { return s.kernel.name; }, step);
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
    LAYA_RETURN_IF_ERROR(check_op(g, weights, form, i));
    OpUses u = uses(g.ops[i]);
    for (ValueId v : u.reads) {
      if (!written[v.index]) {
        return internal_error("op " + std::to_string(i) + " (" + op_kind(g.ops[i]) + ") reads value " +
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

Result<std::unique_ptr<Lowered>> lower(const Graph& g, const WeightTable& weights, const RowCounts& bucket,
                                       kernels::Isa isa, RopeTableCache* rope_cache) {
  LAYA_RETURN_IF_ERROR(check_graph(g, weights));
  LAYA_ASSIGN_OR_RETURN(BucketPlan plan, plan_bucket(g, bucket));
  return lower(g, weights, std::move(plan), isa, rope_cache);
}

Result<std::unique_ptr<Lowered>> lower(const Graph& g, const WeightTable& weights, BucketPlan plan,
                                       kernels::Isa isa, RopeTableCache* rope_cache) {
  auto out = std::make_unique<Lowered>();
  const RowCounts bucket = plan.bucket;
  out->bucket = bucket;
  out->layout = std::move(plan.layout);
  const std::vector<size_t>& at = out->layout.offsets;
  auto off = [&](ValueId v) { return at[v.index]; };
  // A sequence is at most as long as the bucket's token count: RoPE tables and attention scratch
  // cover that.
  const int64_t max_seq_len = bucket.tokens;
  auto rope_table = [&](double theta) -> const kernels::RopeTable* {
    for (const auto& t : out->rope_tables) {
      if (t->theta == theta) return t.get();
    }
    std::shared_ptr<const kernels::RopeTable> table;
    if (rope_cache != nullptr) {
      for (const auto& t : *rope_cache) {
        if (t->theta == theta && t->positions >= max_seq_len) table = t;
      }
    }
    if (table == nullptr) {
      table = std::make_shared<const kernels::RopeTable>(kernels::make_rope_table(theta, max_seq_len));
      if (rope_cache != nullptr) rope_cache->push_back(table);
    }
    out->rope_tables.push_back(table);
    return table.get();
  };
  size_t scratch = 0;

  out->steps.reserve(g.ops.size());
  for (const Op& op : g.ops) {
    out->steps.push_back(std::visit(
        Overloaded{
            [&](const ops::Embed& o) -> Step {
              const WeightView& t = weights[o.table.index];
              return steps::Embed{kernels::embed_kernel(t.dtype, isa), matrix_ref(t), off(o.out)};
            },
            [&](const ops::LayerNorm& o) -> Step {
              return steps::LayerNorm{kernels::layer_norm_kernel(isa),
                                      off(o.x),
                                      off(o.out),
                                      g.shape(o.x).rows,
                                      g.shape(o.x).width,
                                      vector_data(weights, o.w),
                                      vector_data(weights, o.b),
                                      o.eps};
            },
            [&](const ops::Gemm& o) -> Step {
              const WeightView& w = weights[o.w.index];
              const Shape& a = g.shape(o.a);
              scratch = std::max(scratch, kernels::gemm_scratch_floats(isa, bucket.of(a.rows), a.width));
              return steps::Gemm{kernels::gemm_kernel(w.dtype, isa), off(o.a), off(o.out), a.rows,
                                 matrix_ref(w), vector_data(weights, o.b), o.epilogue};
            },
            [&](const ops::Rope& o) -> Step {
              return steps::Rope{kernels::rope_kernel(isa), off(o.qkv),
                                 g.shape(o.qkv).width / (3 * kernels::kHeadDim), rope_table(o.theta)};
            },
            [&](const ops::Attention& o) -> Step {
              scratch = std::max(scratch, kernels::attention_scratch_floats(isa, max_seq_len));
              return steps::Attention{kernels::attention_kernel(isa), off(o.qkv), off(o.out),
                                      g.shape(o.qkv).width / (3 * kernels::kHeadDim),
                                      o.window ? *o.window : -1};
            },
            [&](const ops::GeGlu& o) -> Step {
              return steps::GeGlu{kernels::geglu_kernel(isa), off(o.x), off(o.out), g.shape(o.out).rows,
                                  g.shape(o.out).width};
            },
            [&](const ops::AddType& o) -> Step {
              const WeightView& t = weights[o.table.index];
              return steps::AddType{kernels::add_type_kernel(t.dtype, isa), matrix_ref(t), off(o.h)};
            },
            [&](const ops::GatherMarkers& o) -> Step {
              return steps::GatherMarkers{kernels::gather_markers_kernel(isa), off(o.h), off(o.out),
                                          g.shape(o.h).width};
            },
            [&](const ops::ActFeatures& o) -> Step {
              return steps::ActFeatures{kernels::act_features_kernel(isa), off(o.h), off(o.logits), off(o.out),
                                        g.shape(o.h).width};
            },
            [&](const ops::MeanPool& o) -> Step {
              return steps::MeanPool{kernels::mean_pool_kernel(isa), off(o.h), off(o.out), g.shape(o.h).width};
            },
        },
        op));
  }
  out->scratch_floats = scratch;
  return out;
}

}  // namespace laya
