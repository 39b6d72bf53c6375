// The CPU executor: one graph bound to its weights, run on packed batches. Each batch's row counts
// are rounded up to a bucket (plan/bucket.h); a graph is lowered once per bucket and cached, and the
// arena is sized for the largest bucket seen. A run takes a batch checked where it entered the
// engine (batch_check.h) and loops over the bucket's steps on the rows the batch really has; it
// allocates nothing once its bucket is lowered.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/arena.h"
#include "engine/batch.h"
#include "engine/batch_check.h"
#include "engine/bucket_plan.h"
#include "engine/lower.h"
#include "engine/step_profile.h"
#include "engine/thread_pool.h"
#include "graph/graph.h"
#include "kernels/compute.h"
#include "kernels/isa.h"
#include "util/status.h"

namespace laya {

// Asked before each step of a run whether the caller wants it stopped (an AbortSignal in
// TypeScript, read through shared memory while the run blocks its thread). Empty: never.
using StopCheck = std::function<bool()>;

// The memory runs work in: one arena, a bucket's activations as the planner laid them out and the
// kernels' scratch planned after them (Lowered::scratch_at). The executors of one model share one
// (their graphs never run at once), so it is as big as the larger need of the two.
using Workspace = Arena;

class Executor {
 public:
  // Checks the graph against the weights (every problem at once is not needed: the first, with the
  // op and the numbers). The graph, the table and the weights' data are the caller's and must
  // outlive the executor: it keeps references, not copies. `workspace`: shared with other
  // executors (null: one of its own). `compute`: how the GEMMs on q8 weights multiply.
  static Result<Executor> create(const Graph& graph, const WeightTable& weights,
                                 kernels::Isa isa = kernels::best_isa(), std::shared_ptr<Workspace> workspace = nullptr,
                                 kernels::Compute compute = kernels::Compute::kF32);

  Executor(Executor&&) noexcept = default;
  Executor& operator=(Executor&&) noexcept = default;

  // Runs the graph on a batch checked against limits() (check_batch). A run the stop check ends
  // early is an aborted error, and leaves no output (the next run starts clean).
  Status run(const CheckedBatch& batch);

  // An output of the last run (graph.logits / act / pooled): its rows for that batch, row-major.
  // Empty before the first run, or for a value that is not an output. It lives in the workspace:
  // read it before any executor sharing that workspace runs again.
  std::span<const float> output(ValueId v) const;

  // What a batch must respect to run here: check a batch against these before run().
  const BatchLimits& limits() const { return limits_; }

  const Graph& graph() const { return *graph_; }
  kernels::Isa isa() const { return isa_; }
  kernels::Compute compute() const { return compute_; }
  // The workspace's size (shared: the same figure for every executor sharing it).
  size_t arena_bytes() const { return workspace_->bytes(); }
  size_t buckets_lowered() const { return lowered_.size(); }
  // Threads for the steps big enough to share (null: the calling thread alone). The pool must
  // outlive the executor; results are bit-identical for any pool.
  void set_thread_pool(ThreadPool* pool) { pool_ = pool; }
  int threads() const { return pool_ == nullptr ? 1 : pool_->size(); }

  // Checked before every step of every run (see StopCheck).
  void set_stop_check(StopCheck check) { stop_check_ = std::move(check); }

  // While on, each run adds its steps' times to profile() (see step_profile.h).
  void set_profiling(bool on) { profiling_ = on; }
  const StepProfile& profile() const { return profile_; }
  void reset_profile() { profile_ = {}; }

  // The kernel of every step of the last run's bucket, in op order (empty before a run).
  std::vector<std::string> kernel_names() const;

 private:
  Executor(const Graph& graph, const WeightTable& weights, kernels::Isa isa);
  Result<const Lowered*> lowered_for(const RowCounts& rows);

  const Graph* graph_;
  const WeightTable* weights_;
  kernels::Isa isa_;
  kernels::Compute compute_ = kernels::Compute::kF32;
  BatchLimits limits_;
  std::vector<std::unique_ptr<Lowered>> lowered_;
  RopeTableCache rope_tables_;
  std::shared_ptr<Workspace> workspace_;
  ThreadPool* pool_ = nullptr;
  StopCheck stop_check_;
  bool profiling_ = false;
  StepProfile profile_;
  const Lowered* last_ = nullptr;
  RowCounts last_rows_;
};

}  // namespace laya
