#include "session/outside_runs.h"

#include <string>

namespace laya {

namespace {

const char* graph_name(GraphKind graph) { return graph == GraphKind::kDecision ? "decision" : "embedding"; }

bool same_batch(const Batch& a, const Batch& b) {
  return a.ids == b.ids && a.seq_starts == b.seq_starts && a.markers == b.markers &&
         a.marker_starts == b.marker_starts && a.qtypes == b.qtypes;
}

}  // namespace

void OutsideRuns::begin_request() {
  decision_runs_.clear();
  embedding_runs_.clear();
  begin_replay();
}

void OutsideRuns::begin_replay() {
  decision_calls_ = 0;
  embedding_calls_ = 0;
  pending_.clear();
}

Result<const std::vector<float>*> OutsideRuns::outputs_of(GraphKind graph, const Batch& batch) {
  for (const Pending& p : pending_) {
    if (p.graph != graph) {
      return internal_error(std::string("a ") + graph_name(graph) + " batch waits for the " + graph_name(p.graph) +
                            " batches the backend has not run yet");
    }
  }
  std::vector<Ran>& runs = graph == GraphKind::kDecision ? decision_runs_ : embedding_runs_;
  size_t& calls = graph == GraphKind::kDecision ? decision_calls_ : embedding_calls_;
  const size_t index = calls++;
  if (index == runs.size()) runs.push_back({batch, std::nullopt});
  Ran& ran = runs[index];
  // A replay makes the same batches; anything else is a bug that would pair outputs with the
  // wrong sequences.
  if (!same_batch(ran.batch, batch)) {
    return internal_error(std::string("replaying a request made a different ") + graph_name(graph) + " batch " +
                          std::to_string(index));
  }
  if (ran.outputs) return &*ran.outputs;
  pending_.push_back({graph, index, batch});
  return nullptr;
}

Result<std::vector<DecisionOutput>> OutsideRuns::decisions(const CheckedBatch& checked) {
  const Batch& batch = checked.batch();
  LAYA_ASSIGN_OR_RETURN(const std::vector<float>* floats, outputs_of(GraphKind::kDecision, batch));
  std::vector<DecisionOutput> out(batch.seqs());
  const size_t markers = batch.markers.size();
  for (int64_t s = 0; s < batch.seqs(); ++s) {
    DecisionOutput& o = out[s];
    if (floats == nullptr) {
      o.logits.assign(batch.marker_starts[s + 1] - batch.marker_starts[s], 0.0f);
      o.act.assign(act_width_, 0.0f);
      continue;
    }
    o.logits.assign(floats->begin() + batch.marker_starts[s], floats->begin() + batch.marker_starts[s + 1]);
    const auto act = floats->begin() + static_cast<std::ptrdiff_t>(markers + s * act_width_);
    o.act.assign(act, act + act_width_);
  }
  return out;
}

Result<std::vector<std::vector<float>>> OutsideRuns::embeddings(const CheckedBatch& checked) {
  const Batch& batch = checked.batch();
  LAYA_ASSIGN_OR_RETURN(const std::vector<float>* floats, outputs_of(GraphKind::kEmbedding, batch));
  std::vector<std::vector<float>> out(batch.seqs());
  for (int64_t s = 0; s < batch.seqs(); ++s) {
    if (floats == nullptr) {
      out[s].assign(pooled_width_, 0.0f);
      continue;
    }
    const auto row = floats->begin() + static_cast<std::ptrdiff_t>(s * pooled_width_);
    out[s].assign(row, row + pooled_width_);
  }
  return out;
}

Status OutsideRuns::supply(GraphKind graph, size_t index, std::span<const float> outputs) {
  std::vector<Ran>& runs = graph == GraphKind::kDecision ? decision_runs_ : embedding_runs_;
  if (index >= runs.size()) {
    return invalid_request(std::string("supply: there is no ") + graph_name(graph) + " batch " + std::to_string(index));
  }
  const Batch& batch = runs[index].batch;
  const size_t want = graph == GraphKind::kDecision
                          ? batch.markers.size() + static_cast<size_t>(batch.seqs() * act_width_)
                          : static_cast<size_t>(batch.seqs() * pooled_width_);
  if (outputs.size() != want) {
    return invalid_request(std::string("supply: ") + graph_name(graph) + " batch " + std::to_string(index) +
                           " has " + std::to_string(want) + " outputs, got " + std::to_string(outputs.size()));
  }
  runs[index].outputs.emplace(outputs.begin(), outputs.end());
  return {};
}

}  // namespace laya
