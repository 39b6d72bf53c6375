// The seam between a session and what runs its graphs. The session owns every request's logic
// (rows, batching, shortlists, answers) and checks each batch once against the backend's limits;
// a backend only runs checked batches of the decision or embedding graph and hands back their
// outputs. Two implement it: CpuBackend (cpu_backend.h, the kernels in wasm memory) and
// OutsideBackend (outside_backend.h, a backend outside the engine such as WebGPU, run by replay).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/batch_check.h"
#include "engine/executor.h"
#include "engine/step_profile.h"
#include "engine/thread_pool.h"
#include "util/status.h"

namespace laya {

enum class GraphKind { kDecision, kEmbedding };

// One decision sequence's outputs.
struct DecisionOutput {
  std::vector<float> logits;  // one per marker
  std::vector<float> act;     // A act logits
};

// What a backend holds in wasm memory.
struct BackendMemory {
  uint64_t weights_bytes = 0;  // the data section plus the f32 copies of vectors
  uint64_t arena_bytes = 0;    // activations and the kernels' scratch, one region both graphs share
};

class ForwardBackend {
 public:
  virtual ~ForwardBackend() = default;

  // What a batch of `graph` must respect: the session checks every batch against it, once.
  virtual const BatchLimits& limits(GraphKind graph) const = 0;
  // Each sequence's outputs, in the batch's order.
  virtual Result<std::vector<DecisionOutput>> decisions(const CheckedBatch& batch) = 0;
  virtual Result<std::vector<std::vector<float>>> embeddings(const CheckedBatch& batch) = 0;

  virtual BackendMemory memory() const = 0;
  // Run settings, kept by the session and handed to the backend it binds; a backend without a use
  // for one ignores it.
  virtual void set_thread_pool(ThreadPool* pool) {}
  virtual void set_stop_check(StopCheck check) {}
  // Turning profiling on starts from zero.
  virtual void set_profiling(bool on) {}
  virtual StepProfile profile() const { return {}; }
};

}  // namespace laya
