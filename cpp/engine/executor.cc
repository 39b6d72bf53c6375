// The executor: bucket lookup, lowering on a miss, and the step loop (see executor.h).
#include "engine/executor.h"

#include <algorithm>
#include <chrono>
#include <limits>

#include "plan/bucket.h"

namespace laya {

namespace {

// Runs one step on the batch's real rows. Every kernel gets its whole range here; a threaded
// executor would split the same ranges.
struct StepRunner {
  float* arena;
  float* scratch;
  const kernels::Packing& p;
  const RowCounts& rows;

  void operator()(const steps::Embed& s) const { s.kernel.fn(s.table, p.ids, arena + s.out, 0, rows.tokens); }
  void operator()(const steps::LayerNorm& s) const {
    const kernels::LayerNormArgs args{arena + s.x, arena + s.out, s.width, s.w, s.b, s.eps};
    s.kernel.fn(args, 0, rows.of(s.rows));
  }
  void operator()(const steps::Gemm& s) const {
    const kernels::GemmArgs args{arena + s.a, rows.of(s.rows), s.w, s.bias, s.epilogue, arena + s.out};
    s.kernel.fn(args, 0, s.w.rows, scratch);
  }
  void operator()(const steps::Rope& s) const {
    const kernels::RopeArgs args{arena + s.qkv, s.heads, p.seq_starts, s.table};
    s.kernel.fn(args, 0, p.seqs);
  }
  void operator()(const steps::Attention& s) const {
    const kernels::AttentionArgs args{arena + s.qkv, arena + s.out, s.heads, p.seq_starts, s.window};
    s.kernel.fn(args, 0, p.seqs, scratch);
  }
  void operator()(const steps::GeGlu& s) const {
    s.kernel.fn(arena + s.x, arena + s.out, s.n, 0, rows.of(s.rows));
  }
  void operator()(const steps::AddType& s) const { s.kernel.fn(s.table, p, arena + s.h, 0, p.seqs); }
  void operator()(const steps::GatherMarkers& s) const {
    s.kernel.fn(arena + s.h, arena + s.out, s.width, p, 0, p.seqs);
  }
  void operator()(const steps::ActFeatures& s) const {
    s.kernel.fn(arena + s.h, arena + s.logits, arena + s.out, s.width, p, 0, p.seqs);
  }
  void operator()(const steps::MeanPool& s) const {
    s.kernel.fn(arena + s.h, arena + s.out, s.width, p, 0, p.seqs);
  }
};

// The step loop with a clock read around each step, adding to `profile`.
void run_profiled(const std::vector<Step>& steps, const StepRunner& runner, const RowCounts& rows,
                  const kernels::Packing& packing, StepProfile& profile) {
  using Clock = std::chrono::steady_clock;
  for (const Step& step : steps) {
    const Clock::time_point start = Clock::now();
    std::visit(runner, step);
    const std::chrono::duration<double> took = Clock::now() - start;
    profile.seconds[step.index()] += took.count();
    profile.calls[step.index()] += 1;
    profile.flops[step.index()] += step_flops(step, rows, packing);
  }
  profile.runs += 1;
}

}  // namespace

Executor::Executor(Graph graph, WeightTable weights, kernels::Isa isa)
    : graph_(std::move(graph)), weights_(std::move(weights)), isa_(isa) {}

Result<Executor> Executor::create(Graph graph, WeightTable weights, kernels::Isa isa) {
  LAYA_RETURN_IF_ERROR(check_graph(graph, weights));
  Executor e(std::move(graph), std::move(weights), isa);
  e.vocab_size_ = std::numeric_limits<int32_t>::max();
  for (const Op& op : e.graph_.ops) {
    if (const auto* embed = std::get_if<ops::Embed>(&op)) {
      e.vocab_size_ = std::min(e.vocab_size_, e.weights_[embed->table.index].shape[0]);
    } else if (const auto* add = std::get_if<ops::AddType>(&op)) {
      const int64_t types = e.weights_[add->table.index].shape[0];
      e.type_count_ = e.type_count_ == 0 ? types : std::min(e.type_count_, types);
    } else if (std::holds_alternative<ops::ActFeatures>(op)) {
      e.needs_markers_ = true;
    }
  }
  return e;
}

Result<const Lowered*> Executor::lowered_for(const RowCounts& rows) {
  const RowCounts bucket = bucket_for(rows);
  for (const auto& l : lowered_) {
    if (l->bucket == bucket) return l.get();
  }
  // The arena first: it is the big allocation, and it fails as a Status. What lowering allocates
  // after it (RoPE tables, scratch) is a small fraction of it.
  LAYA_RETURN_IF_ERROR(check_bucket(graph_, bucket));
  LAYA_RETURN_IF_ERROR(arena_.reserve(layout(graph_, bucket).len, "the activation arena"));
  LAYA_ASSIGN_OR_RETURN(std::unique_ptr<Lowered> l, lower(graph_, weights_, bucket, isa_, &rope_tables_));
  LAYA_RETURN_IF_ERROR(scratch_.reserve(l->scratch_floats, "the kernels' scratch"));
  lowered_.push_back(std::move(l));
  return lowered_.back().get();
}

Status Executor::run(const Batch& batch) {
  LAYA_RETURN_IF_ERROR(batch.validate(vocab_size_, type_count_));
  if (needs_markers_) {
    for (int64_t s = 0; s < batch.seqs(); ++s) {
      if (batch.marker_starts[s + 1] == batch.marker_starts[s]) {
        return invalid_request("invalid batch: sequence " + std::to_string(s) +
                               " has no markers, but the graph computes act features over them");
      }
    }
  }
  const RowCounts rows = batch.rows();
  last_ = nullptr;
  LAYA_ASSIGN_OR_RETURN(const Lowered* lowered, lowered_for(rows));
  const kernels::Packing packing = batch.packing();
  const StepRunner runner{arena_.data(), scratch_.data(), packing, rows};
  if (profiling_) {
    run_profiled(lowered->steps, runner, rows, packing, profile_);
  } else {
    for (const Step& step : lowered->steps) std::visit(runner, step);
  }
  last_ = lowered;
  last_rows_ = rows;
  return {};
}

std::span<const float> Executor::output(ValueId v) const {
  if (last_ == nullptr) return {};
  if (v != graph_.logits && v != graph_.act && v != graph_.pooled) return {};
  const Shape& s = graph_.shape(v);
  return {arena_.data() + last_->layout.offsets[v.index],
          static_cast<size_t>(last_rows_.of(s.rows) * s.width)};
}

std::vector<std::string> Executor::kernel_names() const {
  std::vector<std::string> names;
  if (last_ == nullptr) return names;
  for (const Step& s : last_->steps) names.emplace_back(kernel_name(s));
  return names;
}

}  // namespace laya
