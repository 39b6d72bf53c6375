// Each CPU step's lowering from its op and its run (see steps.h), one block per op in the order of
// the Op variant.
#include "engine/steps.h"

namespace laya {

kernels::MatrixRef LowerContext::matrix(WeightId id) const {
  const WeightView& w = weight(id);
  return {w.data, w.dtype, w.shape[0], w.shape[1], w.layout, w.scales};
}

const float* LowerContext::vector(std::optional<WeightId> id) const {
  return id ? reinterpret_cast<const float*>(weight(*id).data) : nullptr;
}

const kernels::RopeTable* LowerContext::rope_table(double theta) {
  for (const auto& t : tables_) {
    if (t->theta == theta) return t.get();
  }
  std::shared_ptr<const kernels::RopeTable> found;
  if (cache_ != nullptr) {
    for (const auto& t : *cache_) {
      if (t->theta == theta && t->positions >= max_seq_len()) found = t;
    }
  }
  if (found == nullptr) {
    found = std::make_shared<const kernels::RopeTable>(kernels::make_rope_table(theta, max_seq_len()));
    if (cache_ != nullptr) cache_->push_back(found);
  }
  tables_.push_back(found);
  return found.get();
}

const char* kernel_name(const Step& step) {
  return std::visit(
      [](const auto& s) {
        if constexpr (std::is_same_v<std::decay_t<decltype(s)>, steps::Gemm>) {
          return s.kernel_name();
        } else {
          return s.kernel.name;
        }
      },
      step);
}

namespace steps {

// --- Embed: token rows split over threads.
Embed Embed::lower(const Op& o, LowerContext& c) {
  return {c.kernels.embed.of(c.weight(o.table).dtype), c.matrix(o.table), c.at(o.out)};
}
void Embed::run(const RunContext& r) const {
  r.split(r.rows.tokens, 1, 64, [&](int64_t begin, int64_t end, int) { kernel.fn(table, r.p.ids, r.arena + out, begin, end); });
}

// --- LayerNorm: rows split over threads.
LayerNorm LayerNorm::lower(const Op& o, LowerContext& c) {
  return {c.kernels.layer_norm, c.at(o.x), c.at(o.out), c.shape(o.x).rows, c.shape(o.x).width,
          c.vector(o.w), c.vector(o.b), o.eps};
}
void LayerNorm::run(const RunContext& r) const {
  const kernels::LayerNormArgs args{r.arena + x, r.arena + out, width, w, b, eps};
  r.split(r.rows.of(rows), 1, 16, [&](int64_t begin, int64_t end, int) { kernel.fn(args, begin, end); });
}

// --- Gemm: output columns in whole panels, at least 64 a part (or all of a small GEMM). Under
// integer compute the rows are quantized first, in parts of whole 4-row tiles, into the shared
// scratch every column part then reads: the row scales, then the quantized rows 64-byte aligned.
namespace {
size_t quantized_rows_at(int64_t m) { return static_cast<size_t>((m + 15) / 16 * 16); }
}  // namespace

Gemm Gemm::lower(const Op& o, LowerContext& c) {
  const Shape& in = c.shape(o.a);
  const int64_t m = c.bucket.of(in.rows);
  const DType dtype = c.weight(o.w).dtype;
  Gemm g{{}, c.at(o.a), c.at(o.out), in.rows, c.matrix(o.w), c.vector(o.b), o.epilogue};
  if (c.compute == kernels::Compute::kInt8 && dtype == DType::kI8) {
    g.quantize = c.kernels.quantize_activations;
    g.int8 = c.kernels.int8_gemm;
    c.need_scratch(c.kernels.int8_gemm_scratch_floats(m));
    c.need_shared(quantized_rows_at(m) + (kernels::quantized_activations_size(m, in.width) + 1) / 2);
    return g;
  }
  g.kernel = c.kernels.gemm.of(dtype);
  c.need_scratch(c.kernels.gemm_scratch_floats(m, in.width));
  return g;
}
void Gemm::run(const RunContext& r) const {
  if (int8.fn != nullptr) {
    run_int8(r);
    return;
  }
  const kernels::GemmArgs args{r.arena + a, r.rows.of(rows), w, bias, epilogue, r.arena + out};
  r.split(w.rows, kPanelRows, 64, [&](int64_t begin, int64_t end, int part) { kernel.fn(args, begin, end, r.scratch_of(part)); });
}
void Gemm::run_int8(const RunContext& r) const {
  const int64_t m = r.rows.of(rows);
  const int64_t k = w.cols;
  const float* x = r.arena + a;
  float* scales = r.shared;
  auto* q = reinterpret_cast<int16_t*>(r.shared + quantized_rows_at(m));
  r.split(m, kernels::kActivationTileRows, 16, [&](int64_t begin, int64_t end, int) {
    quantize.fn(x + begin * k, end - begin, k, q + kernels::quantized_index(k, begin, 0), scales + begin);
  });
  const kernels::Int8GemmArgs args{q, scales, m, w, bias, epilogue, r.arena + out};
  r.split(w.rows, kPanelRows, 64, [&](int64_t begin, int64_t end, int part) { int8.fn(args, begin, end, r.scratch_of(part)); });
}

// --- Rope: one call over every sequence.
Rope Rope::lower(const Op& o, LowerContext& c) {
  return {c.kernels.rope, c.at(o.qkv), c.shape(o.qkv).width / (3 * kHeadDim), c.rope_table(o.theta)};
}
void Rope::run(const RunContext& r) const {
  kernel.fn({r.arena + qkv, heads, r.p.seq_starts, table}, 0, r.p.seqs);
}

// --- Attention: (sequence, head) pairs split over threads.
Attention Attention::lower(const Op& o, LowerContext& c) {
  c.need_scratch(c.kernels.attention_scratch_floats(c.max_seq_len()));
  return {c.kernels.attention, c.at(o.qkv), c.at(o.out), c.shape(o.qkv).width / (3 * kHeadDim),
          o.window ? *o.window : -1};
}
void Attention::run(const RunContext& r) const {
  const kernels::AttentionArgs args{r.arena + qkv, r.arena + out, heads, r.p.seq_starts, window};
  r.split(r.p.seqs * heads, 1, 1, [&](int64_t begin, int64_t end, int part) { kernel.fn(args, begin, end, r.scratch_of(part)); });
}

// --- GeGlu: rows split over threads.
GeGlu GeGlu::lower(const Op& o, LowerContext& c) {
  return {c.kernels.geglu, c.at(o.x), c.at(o.out), c.shape(o.out).rows, c.shape(o.out).width};
}
void GeGlu::run(const RunContext& r) const {
  r.split(r.rows.of(rows), 1, 16, [&](int64_t begin, int64_t end, int) { kernel.fn(r.arena + x, r.arena + out, n, begin, end); });
}

// --- AddType: one call over every sequence.
AddType AddType::lower(const Op& o, LowerContext& c) {
  return {c.kernels.add_type.of(c.weight(o.table).dtype), c.matrix(o.table), c.at(o.h)};
}
void AddType::run(const RunContext& r) const { kernel.fn(table, r.p, r.arena + h, 0, r.p.seqs); }

// --- GatherMarkers: one call over every sequence.
GatherMarkers GatherMarkers::lower(const Op& o, LowerContext& c) {
  return {c.kernels.gather_markers, c.at(o.h), c.at(o.out), c.shape(o.h).width};
}
void GatherMarkers::run(const RunContext& r) const { kernel.fn(r.arena + h, r.arena + out, width, r.p, 0, r.p.seqs); }

// --- ActFeatures: one call over every sequence.
ActFeatures ActFeatures::lower(const Op& o, LowerContext& c) {
  return {c.kernels.act_features, c.at(o.h), c.at(o.logits), c.at(o.out), c.shape(o.h).width};
}
void ActFeatures::run(const RunContext& r) const {
  kernel.fn(r.arena + h, r.arena + logits, r.arena + out, width, r.p, 0, r.p.seqs);
}

// --- MeanPool: one call over every sequence.
MeanPool MeanPool::lower(const Op& o, LowerContext& c) {
  return {c.kernels.mean_pool, c.at(o.h), c.at(o.out), c.shape(o.h).width};
}
void MeanPool::run(const RunContext& r) const { kernel.fn(r.arena + h, r.arena + out, width, r.p, 0, r.p.seqs); }

}  // namespace steps
}  // namespace laya
