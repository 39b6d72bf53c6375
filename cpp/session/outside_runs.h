// Batches run by a backend outside the engine, whose runs are asynchronous and whose memory is
// not wasm memory: the WebGPU backend (web/src/webgpu/). The session keeps all of a request's
// logic (rows, batching, shortlists, answers, docs/architecture.md "One request, two backends");
// its OutsideBackend (outside_backend.h) hands the batches it needs to an OutsideRuns.
//
// The request code is synchronous and the GPU is not, so a request is run by replay: the caller
// runs it, and every batch without outputs yet is recorded as pending and answered with zeros so
// that the rest of the same phase still shows its batches. The caller then runs the pending
// batches on its backend, supplies their outputs, and runs the request again from the start; the
// same code makes the same batches in the same order, now answered, until a run has nothing
// pending and its result is the request's. A batch of the other graph while some are pending
// stops the run (its inputs would come from zeros): predict_shortlist embeds first, then decides,
// in two rounds.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "engine/batch_check.h"
#include "session/forward_backend.h"
#include "util/status.h"

namespace laya {

class OutsideRuns {
 public:
  // `act_width` act logits per decision sequence; `pooled_width` floats per embedding.
  OutsideRuns(int64_t act_width, int64_t pooled_width) : act_width_(act_width), pooled_width_(pooled_width) {}

  // Forgets every batch and output: a new request starts.
  void begin_request();
  // A replay of the same request starts: calls are counted from the first again.
  void begin_replay();

  // The outputs of the next decision / embedding batch of this replay: supplied ones, or zeros
  // while the batch is recorded as pending.
  Result<std::vector<DecisionOutput>> decisions(const CheckedBatch& batch);
  Result<std::vector<std::vector<float>>> embeddings(const CheckedBatch& batch);

  struct Pending {
    GraphKind graph;
    size_t index;  // among this request's batches of that graph
    Batch batch;
  };
  const std::vector<Pending>& pending() const { return pending_; }

  // The outputs of a pending batch as its backend wrote them: decision batches their logits (one
  // per marker) then their act rows (act_width per sequence); embedding batches their pooled rows.
  Status supply(GraphKind graph, size_t index, std::span<const float> outputs);

 private:
  struct Ran {
    Batch batch;
    std::optional<std::vector<float>> outputs;
  };
  // The outputs of call `index` of `graph`, recording it as pending when it has none.
  Result<const std::vector<float>*> outputs_of(GraphKind graph, const Batch& batch);

  int64_t act_width_;
  int64_t pooled_width_;
  std::vector<Ran> decision_runs_;
  std::vector<Ran> embedding_runs_;
  size_t decision_calls_ = 0;
  size_t embedding_calls_ = 0;
  std::vector<Pending> pending_;
};

}  // namespace laya
