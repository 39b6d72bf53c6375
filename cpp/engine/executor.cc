// The executor: bucket lookup, lowering on a miss, and the step loop (see executor.h).
#include "engine/executor.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>

#include "graph/weights.h"
#include "plan/bucket.h"

namespace laya {

namespace {

// The parts a range [0, count) is cut into: whole `grain`s (the GEMM's 8-column panels), at
// least `min_per_part` items each (waking workers costs more than a small step), and at most
// one per thread. Every item is computed the same way whichever part it falls in, so outputs are
// bit-identical for any thread count.
struct Split {
  int64_t count;
  int64_t grain;
  int64_t units;  // grains in count, the last one maybe partial
  int parts;

  Split(int64_t count, int64_t grain, int64_t min_per_part, int threads)
      : count(count), grain(grain), units((count + grain - 1) / grain) {
    const int64_t min_units = std::max<int64_t>(1, (min_per_part + grain - 1) / grain);
    parts = static_cast<int>(std::clamp<int64_t>(units / min_units, 1, threads));
  }
  int64_t begin(int part) const { return std::min(count, units * part / parts * grain); }
  int64_t end(int part) const { return begin(part + 1); }
};

// Runs one step on the batch's real rows, its range split over the pool's threads where the step
// is big enough; part i of a split uses scratch [i · scratch_floats, (i + 1) · scratch_floats).
struct StepRunner {
  float* arena;
  float* scratch;
  size_t scratch_floats;
  const kernels::Packing& p;
  const RowCounts& rows;
  ThreadPool* pool;

  int threads() const { return pool == nullptr ? 1 : pool->size(); }
  float* scratch_of(int part) const { return scratch + static_cast<size_t>(part) * scratch_floats; }

  template <typename Fn>
  void split(const Split& split, const Fn& fn) const {
    auto part = [&](int i) { fn(split.begin(i), split.end(i), i); };
    if (split.parts == 1) {
      part(0);
    } else {
      pool->run(split.parts, part);
    }
  }

  void operator()(const steps::Embed& s) const {
    split(Split(rows.tokens, 1, 64, threads()),
          [&](int64_t b, int64_t e, int) { s.kernel.fn(s.table, p.ids, arena + s.out, b, e); });
  }
  void operator()(const steps::LayerNorm& s) const {
    const kernels::LayerNormArgs args{arena + s.x, arena + s.out, s.width, s.w, s.b, s.eps};
    split(Split(rows.of(s.rows), 1, 16, threads()), [&](int64_t b, int64_t e, int) { s.kernel.fn(args, b, e); });
  }
  void operator()(const steps::Gemm& s) const {
    const kernels::GemmArgs args{arena + s.a, rows.of(s.rows), s.w, s.bias, s.epilogue, arena + s.out};
    // Columns in whole panels; a part gets at least 64 columns, or all of a small GEMM.
    split(Split(s.w.rows, kPanelRows, 64, threads()),
          [&](int64_t b, int64_t e, int part) { s.kernel.fn(args, b, e, scratch_of(part)); });
  }
  void operator()(const steps::Rope& s) const {
    const kernels::RopeArgs args{arena + s.qkv, s.heads, p.seq_starts, s.table};
    s.kernel.fn(args, 0, p.seqs);
  }
  void operator()(const steps::Attention& s) const {
    const kernels::AttentionArgs args{arena + s.qkv, arena + s.out, s.heads, p.seq_starts, s.window};
    split(Split(p.seqs * s.heads, 1, 1, threads()),
          [&](int64_t b, int64_t e, int part) { s.kernel.fn(args, b, e, scratch_of(part)); });
  }
  void operator()(const steps::GeGlu& s) const {
    split(Split(rows.of(s.rows), 1, 16, threads()),
          [&](int64_t b, int64_t e, int) { s.kernel.fn(arena + s.x, arena + s.out, s.n, b, e); });
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

// The aborted error of a run stopped before step `index` of `count`.
Error stopped_at(size_t index, size_t count) {
  return aborted("forward: stopped on request before step " + std::to_string(index + 1) + " of " +
                 std::to_string(count));
}

// The step loop with a clock read around each step, adding to `profile`.
Status run_profiled(const std::vector<Step>& steps, const StepRunner& runner, const RowCounts& rows,
                    const kernels::Packing& packing, const StopCheck& stop, StepProfile& profile) {
  using Clock = std::chrono::steady_clock;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (stop && stop()) return stopped_at(i, steps.size());
    const Step& step = steps[i];
    const Clock::time_point start = Clock::now();
    std::visit(runner, step);
    const std::chrono::duration<double> took = Clock::now() - start;
    profile.seconds[step.index()] += took.count();
    profile.calls[step.index()] += 1;
    profile.flops[step.index()] += step_flops(step, rows, packing);
  }
  profile.runs += 1;
  return {};
}

}  // namespace

Executor::Executor(Graph graph, WeightTable weights, kernels::Isa isa)
    : graph_(std::move(graph)), weights_(std::move(weights)), isa_(isa) {}

Result<Executor> Executor::create(Graph graph, WeightTable weights, kernels::Isa isa,
                                  std::shared_ptr<Workspace> workspace) {
  LAYA_RETURN_IF_ERROR(check_graph(graph, weights));
  Executor e(std::move(graph), std::move(weights), isa);
  e.workspace_ = workspace != nullptr ? std::move(workspace) : std::make_shared<Workspace>();
  e.limits_ = batch_limits(e.graph_, e.weights_);
  return e;
}

Result<const Lowered*> Executor::lowered_for(const RowCounts& rows) {
  const RowCounts bucket = bucket_for(rows);
  for (const auto& l : lowered_) {
    if (l->bucket == bucket) return l.get();
  }
  // Planned once (the graph was checked at create). The arena first: it is the big allocation, and
  // it fails as a Status. What lowering allocates after it (RoPE tables) and the scratch run()
  // reserves are a small fraction of it.
  LAYA_ASSIGN_OR_RETURN(BucketPlan plan, plan_bucket(graph_, bucket));
  LAYA_RETURN_IF_ERROR(workspace_->activations.reserve(plan.layout.len, "the activation arena"));
  LAYA_ASSIGN_OR_RETURN(std::unique_ptr<Lowered> l, lower(graph_, weights_, std::move(plan), isa_, &rope_tables_));
  lowered_.push_back(std::move(l));
  return lowered_.back().get();
}

Status Executor::run(const Batch& batch) {
  LAYA_RETURN_IF_ERROR(check_batch(batch, limits_));
  const RowCounts rows = batch.rows();
  last_ = nullptr;
  LAYA_ASSIGN_OR_RETURN(const Lowered* lowered, lowered_for(rows));
  // One scratch per thread (allocates only when a bucket or the thread count needs more).
  LAYA_RETURN_IF_ERROR(workspace_->scratch.reserve(lowered->scratch_floats * static_cast<size_t>(threads()), "the kernels' scratch"));
  const kernels::Packing packing = batch.packing();
  const StepRunner runner{workspace_->activations.data(), workspace_->scratch.data(), lowered->scratch_floats, packing, rows, pool_};
  if (profiling_) {
    LAYA_RETURN_IF_ERROR(run_profiled(lowered->steps, runner, rows, packing, stop_check_, profile_));
  } else {
    // A step is the smallest unit a stop can cut: between steps the arena holds nothing the next
    // run needs, so stopping here leaves the executor as good as new.
    const std::vector<Step>& steps = lowered->steps;
    for (size_t i = 0; i < steps.size(); ++i) {
      if (stop_check_ && stop_check_()) return stopped_at(i, steps.size());
      std::visit(runner, steps[i]);
    }
  }
  last_ = lowered;
  last_rows_ = rows;
  return {};
}

std::span<const float> Executor::output(ValueId v) const {
  if (last_ == nullptr) return {};
  if (v != graph_.logits && v != graph_.act && v != graph_.pooled) return {};
  const Shape& s = graph_.shape(v);
  return {workspace_->activations.data() + last_->layout.offsets[v.index],
          static_cast<size_t>(last_rows_.of(s.rows) * s.width)};
}

std::vector<std::string> Executor::kernel_names() const {
  std::vector<std::string> names;
  if (last_ == nullptr) return names;
  for (const Step& s : last_->steps) names.emplace_back(kernel_name(s));
  return names;
}

}  // namespace laya
