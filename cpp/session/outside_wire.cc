#include "session/outside_wire.h"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <utility>
#include <variant>

#include "kernels/rope.h"
#include "util/json.h"
#include "util/overloaded.h"

namespace laya::wire {

namespace {

// Writes `"key": value` members after a '{', commas between them.
class Members {
 public:
  explicit Members(std::string& out) : out_(out) {}
  std::string& key(const char* name) {
    out_ += first_ ? "\"" : ", \"";
    first_ = false;
    out_ += name;
    out_ += "\": ";
    return out_;
  }
  void number(const char* name, int64_t v) { key(name) += std::to_string(v); }
  void offset(const char* name, size_t v) { key(name) += std::to_string(v); }
  void text(const char* name, std::string_view v) { json::append_quoted(key(name), v, false); }
  void weight(const char* name, std::optional<WeightId> w) {
    key(name) += w ? std::to_string(w->index) : "null";
  }
  void real(const char* name, double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.17g", v);
    key(name) += buffer;
  }

 private:
  std::string& out_;
  bool first_ = true;
};

const char* rows_name(Rows rows) {
  switch (rows) {
    case Rows::kTokens: return "tokens";
    case Rows::kSeqs: return "seqs";
    case Rows::kMarkers: return "markers";
  }
  return "tokens";
}

const char* epilogue_name(Epilogue e) {
  switch (e) {
    case Epilogue::kNone: return "none";
    case Epilogue::kGelu: return "gelu";
    case Epilogue::kRelu: return "relu";
    case Epilogue::kAccumulate: return "accumulate";
  }
  return "none";
}

void append_ints(std::string& out, std::span<const int32_t> values) {
  out += '[';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(values[i]);
  }
  out += ']';
}

// One op as a step: its values become arena offsets, its weights stay ids.
void append_step(std::string& out, const Graph& g, const Layout& layout, const Op& op) {
  auto at = [&](ValueId v) { return layout.offsets[v.index]; };
  auto width = [&](ValueId v) { return g.shape(v).width; };
  out += '{';
  Members m(out);
  std::visit(Overloaded{
                 [&](const ops::Embed& o) {
                   m.text("op", "embed");
                   m.number("table", o.table.index);
                   m.offset("out", at(o.out));
                   m.number("width", width(o.out));
                 },
                 [&](const ops::LayerNorm& o) {
                   m.text("op", "layer_norm");
                   m.offset("x", at(o.x));
                   m.offset("out", at(o.out));
                   m.text("rows", rows_name(g.shape(o.x).rows));
                   m.number("width", width(o.x));
                   m.number("w", o.w.index);
                   m.weight("b", o.b);
                   m.real("eps", o.eps);
                 },
                 [&](const ops::Gemm& o) {
                   m.text("op", "gemm");
                   m.offset("a", at(o.a));
                   m.offset("out", at(o.out));
                   m.text("rows", rows_name(g.shape(o.a).rows));
                   m.number("k", width(o.a));
                   m.number("n", width(o.out));
                   m.number("w", o.w.index);
                   m.weight("b", o.b);
                   m.text("epilogue", epilogue_name(o.epilogue));
                 },
                 [&](const ops::Rope& o) {
                   m.text("op", "rope");
                   m.offset("qkv", at(o.qkv));
                   m.number("heads", width(o.qkv) / (3 * kernels::kHeadDim));
                   m.real("theta", o.theta);
                 },
                 [&](const ops::Attention& o) {
                   m.text("op", "attention");
                   m.offset("qkv", at(o.qkv));
                   m.offset("out", at(o.out));
                   m.number("heads", width(o.qkv) / (3 * kernels::kHeadDim));
                   m.key("window") += o.window ? std::to_string(*o.window) : "null";
                 },
                 [&](const ops::GeGlu& o) {
                   m.text("op", "geglu");
                   m.offset("x", at(o.x));
                   m.offset("out", at(o.out));
                   m.text("rows", rows_name(g.shape(o.x).rows));
                   m.number("n", width(o.out));
                 },
                 [&](const ops::AddType& o) {
                   m.text("op", "add_type");
                   m.offset("h", at(o.h));
                   m.number("table", o.table.index);
                   m.number("width", width(o.h));
                 },
                 [&](const ops::GatherMarkers& o) {
                   m.text("op", "gather_markers");
                   m.offset("h", at(o.h));
                   m.offset("out", at(o.out));
                   m.number("width", width(o.h));
                 },
                 [&](const ops::ActFeatures& o) {
                   m.text("op", "act_features");
                   m.offset("h", at(o.h));
                   m.offset("logits", at(o.logits));
                   m.offset("out", at(o.out));
                   m.number("width", width(o.h));
                 },
                 [&](const ops::MeanPool& o) {
                   m.text("op", "mean_pool");
                   m.offset("h", at(o.h));
                   m.offset("out", at(o.out));
                   m.number("width", width(o.h));
                 },
             },
             op);
  out += '}';
}

}  // namespace

std::string outside_model(const ModelPlan& plan, const safetensors::Header& header, const BatchLimits& limits) {
  std::string out = "{";
  Members m(out);
  m.number("dataOffset", static_cast<int64_t>(header.data_offset));
  m.number("dataLength", static_cast<int64_t>(header.data_length));
  m.number("vocabSize", limits.vocab_size);
  m.number("typeCount", limits.type_count);
  m.key("weights") += '[';
  for (size_t i = 0; i < plan.weights.size(); ++i) {
    const WeightView& w = plan.weights[i];
    const TensorBytes& b = plan.bytes[i];
    out += i > 0 ? ", {" : "{";
    Members t(out);
    t.text("name", w.name);
    t.text("dtype", dtype_name(w.dtype));
    std::string& shape = t.key("shape");
    shape += '[';
    for (size_t d = 0; d < w.shape.size(); ++d) shape += (d > 0 ? "," : "") + std::to_string(w.shape[d]);
    shape += ']';
    t.number("byteOffset", static_cast<int64_t>(b.begin));
    t.number("byteLength", static_cast<int64_t>(b.end - b.begin));
    if (w.dtype == DType::kI8) {
      t.key("scales") += "{\"byteOffset\": " + std::to_string(b.scales_begin) +
                         ", \"byteLength\": " + std::to_string(b.scales_end - b.scales_begin) + "}";
    }
    out += '}';
  }
  out += "]}";
  return out;
}

std::string bucket_program(const Graph& graph, const char* graph_name, const BucketPlan& plan) {
  std::string out = "{";
  Members m(out);
  m.text("graph", graph_name);
  m.key("bucket") += "{\"tokens\": " + std::to_string(plan.bucket.tokens) + ", \"seqs\": " +
                     std::to_string(plan.bucket.seqs) + ", \"markers\": " + std::to_string(plan.bucket.markers) + "}";
  m.offset("arenaFloats", plan.layout.len);
  std::string& steps = m.key("steps");
  steps += '[';
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    if (i > 0) out += ", ";
    append_step(out, graph, plan.layout, graph.ops[i]);
  }
  out += ']';
  std::string& outputs = m.key("outputs");
  outputs += '{';
  Members o(outputs);
  for (auto [name, value] : {std::pair{"logits", graph.logits}, std::pair{"act", graph.act},
                             std::pair{"pooled", graph.pooled}}) {
    if (!value) continue;
    o.key(name) += "{\"offset\": " + std::to_string(plan.layout.offsets[value->index]) +
                   ", \"width\": " + std::to_string(graph.shape(*value).width) + "}";
  }
  out += "}}";
  return out;
}

std::string pending_batches(const std::vector<OutsideRuns::Pending>& pending) {
  std::string out = "[";
  for (size_t i = 0; i < pending.size(); ++i) {
    const OutsideRuns::Pending& p = pending[i];
    out += i > 0 ? ", {" : "{";
    Members m(out);
    m.text("graph", p.graph == GraphKind::kDecision ? "decision" : "embedding");
    m.number("index", static_cast<int64_t>(p.index));
    append_ints(m.key("ids"), p.batch.ids);
    append_ints(m.key("seqStarts"), p.batch.seq_starts);
    append_ints(m.key("markers"), p.batch.markers);
    append_ints(m.key("markerStarts"), p.batch.marker_starts);
    append_ints(m.key("qtypes"), p.batch.qtypes);
    out += '}';
  }
  out += ']';
  return out;
}

}  // namespace laya::wire
