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

// The aborted error of a run stopped before step `index` of `count`.
Error stopped_at(size_t index, size_t count) {
  return aborted("forward: stopped on request before step " + std::to_string(index + 1) + " of " +
                 std::to_string(count));
}

}  // namespace

Executor::Executor(const Graph& graph, const WeightTable& weights, kernels::Isa isa)
    : graph_(&graph), weights_(&weights), isa_(isa) {}

Result<Executor> Executor::create(const Graph& graph, const WeightTable& weights, kernels::Isa isa,
                                  std::shared_ptr<Workspace> workspace, kernels::Compute compute) {
  LAYA_RETURN_IF_ERROR(check_graph(graph, weights));
  Executor e(graph, weights, isa);
  e.compute_ = compute;
  e.workspace_ = workspace != nullptr ? std::move(workspace) : std::make_shared<Workspace>();
  e.limits_ = batch_limits(graph, weights);
  return e;
}

Result<const Lowered*> Executor::lowered_for(const RowCounts& rows) {
  const RowCounts bucket = bucket_for(rows);
  for (const auto& l : lowered_) {
    if (l->bucket == bucket) return l.get();
  }
  // Planned once (the graph was checked at create), then lowered from that plan.
  LAYA_ASSIGN_OR_RETURN(BucketPlan plan, plan_bucket(*graph_, bucket));
  LAYA_ASSIGN_OR_RETURN(std::unique_ptr<Lowered> l, lower(*graph_, *weights_, std::move(plan), isa_, &rope_tables_, compute_));
  lowered_.push_back(std::move(l));
  return lowered_.back().get();
}

Status Executor::run(const CheckedBatch& checked) {
  const Batch& batch = checked.batch();
  const RowCounts rows = batch.rows();
  last_ = nullptr;
  LAYA_ASSIGN_OR_RETURN(const Lowered* lowered, lowered_for(rows));
  // The bucket's activations, the shared scratch, then one scratch per thread: allocates only when a bucket or the
  // thread count needs more than the arena has.
  LAYA_RETURN_IF_ERROR(workspace_->reserve(lowered->arena_floats(threads()), "the activation arena"));
  const kernels::Packing packing = batch.packing();
  float* arena = workspace_->data();
  const RunContext context{arena, arena + lowered->scratch_at(), lowered->scratch_floats,
                           arena + lowered->shared_at(), packing, rows, pool_};
  auto run_step = [&context](const auto& s) { s.run(context); };
  // A step is the smallest unit a stop can cut: between steps the arena holds nothing the next
  // run needs, so stopping here leaves the executor as good as new. While profiling, a clock is
  // read around each step.
  using Clock = std::chrono::steady_clock;
  const std::vector<Step>& steps = lowered->steps;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (stop_check_ && stop_check_()) return stopped_at(i, steps.size());
    const Step& step = steps[i];
    if (!profiling_) {
      std::visit(run_step, step);
      continue;
    }
    const Clock::time_point start = Clock::now();
    std::visit(run_step, step);
    const std::chrono::duration<double> took = Clock::now() - start;
    profile_.seconds[step.index()] += took.count();
    profile_.calls[step.index()] += 1;
    profile_.flops[step.index()] += op_flops(graph_->ops[i], *graph_, {rows, batch.seq_starts});
  }
  if (profiling_) profile_.runs += 1;
  last_ = lowered;
  last_rows_ = rows;
  return {};
}

std::span<const float> Executor::output(ValueId v) const {
  if (last_ == nullptr) return {};
  if (v != graph_->logits && v != graph_->act && v != graph_->pooled) return {};
  const Shape& s = graph_->shape(v);
  return {workspace_->data() + last_->layout.offsets[v.index], static_cast<size_t>(last_rows_.of(s.rows) * s.width)};
}

std::vector<std::string> Executor::kernel_names() const {
  std::vector<std::string> names;
  if (last_ == nullptr) return names;
  for (const Step& s : last_->steps) names.emplace_back(kernel_name(s));
  return names;
}

}  // namespace laya
