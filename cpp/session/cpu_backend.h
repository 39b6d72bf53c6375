// The engine's own backend: a bound model in wasm memory and an Executor per graph, both on one
// workspace (their graphs never run at once). The model is immutable once bound: the executors
// keep references to its graphs and weight table, so it is held where it cannot move.
#pragma once

#include <memory>
#include <optional>

#include "engine/executor.h"
#include "kernels/compute.h"
#include "laya/model.h"
#include "session/forward_backend.h"
#include "util/malloc_bytes.h"

namespace laya {

// A model bound to its weights, the data section its matrices view, and how its q8 matrices are
// multiplied (chosen with the load: kernels/compute.h).
struct BoundModel {
  MallocBytes data;
  uint64_t data_length = 0;
  LayaModel model;
  kernels::Compute compute = kernels::Compute::kF32;
};

class CpuBackend final : public ForwardBackend {
 public:
  // Checks both graphs against the weights and makes their executors, computing as `bound` says.
  static Result<std::unique_ptr<CpuBackend>> create(std::unique_ptr<const BoundModel> bound,
                                                     kernels::Isa isa = kernels::best_isa());

  const BatchLimits& limits(GraphKind graph) const override { return executor(graph).limits(); }
  Result<std::vector<DecisionOutput>> decisions(const CheckedBatch& batch) override;
  Result<std::vector<std::vector<float>>> embeddings(const CheckedBatch& batch) override;
  BackendMemory memory() const override;
  void set_thread_pool(ThreadPool* pool) override;
  void set_stop_check(StopCheck check) override;
  void set_profiling(bool on) override;
  StepProfile profile() const override;

  const LayaModel& model() const { return bound_->model; }
  // What was asked for; integer compute runs only the GEMMs whose weights are q8.
  kernels::Compute compute() const { return bound_->compute; }

 private:
  CpuBackend(std::unique_ptr<const BoundModel> bound, Executor decision, Executor embedding)
      : bound_(std::move(bound)), decision_(std::move(decision)), embedding_(std::move(embedding)) {}
  const Executor& executor(GraphKind graph) const { return graph == GraphKind::kDecision ? decision_ : embedding_; }

  std::unique_ptr<const BoundModel> bound_;
  Executor decision_;
  Executor embedding_;
};

}  // namespace laya
