// Running the graphs on the engine's executors (see cpu_backend.h).
#include "session/cpu_backend.h"

namespace laya {

Result<std::unique_ptr<CpuBackend>> CpuBackend::create(std::unique_ptr<const BoundModel> bound, kernels::Isa isa) {
  auto workspace = std::make_shared<Workspace>();
  const LayaModel& m = bound->model;
  LAYA_ASSIGN_OR_RETURN(Executor decision, Executor::create(m.decision, m.weights, isa, workspace, bound->compute));
  LAYA_ASSIGN_OR_RETURN(Executor embedding, Executor::create(m.embedding, m.weights, isa, workspace, bound->compute));
  return std::unique_ptr<CpuBackend>(new CpuBackend(std::move(bound), std::move(decision), std::move(embedding)));
}

Result<std::vector<DecisionOutput>> CpuBackend::decisions(const CheckedBatch& checked) {
  LAYA_RETURN_IF_ERROR(decision_.run(checked));
  const Batch& batch = checked.batch();
  const Graph& g = decision_.graph();
  const int64_t acts = g.shape(*g.act).width;
  auto logits = decision_.output(*g.logits);
  auto act = decision_.output(*g.act);
  std::vector<DecisionOutput> out(batch.seqs());
  for (int64_t s = 0; s < batch.seqs(); ++s) {
    out[s].logits.assign(logits.begin() + batch.marker_starts[s], logits.begin() + batch.marker_starts[s + 1]);
    out[s].act.assign(act.begin() + s * acts, act.begin() + (s + 1) * acts);
  }
  return out;
}

Result<std::vector<std::vector<float>>> CpuBackend::embeddings(const CheckedBatch& checked) {
  LAYA_RETURN_IF_ERROR(embedding_.run(checked));
  const Batch& batch = checked.batch();
  const Graph& g = embedding_.graph();
  const int64_t d = g.shape(*g.pooled).width;
  auto pooled = embedding_.output(*g.pooled);
  std::vector<std::vector<float>> out(batch.seqs());
  for (int64_t s = 0; s < batch.seqs(); ++s) out[s].assign(pooled.begin() + s * d, pooled.begin() + (s + 1) * d);
  return out;
}

BackendMemory CpuBackend::memory() const {
  BackendMemory r;
  r.weights_bytes = bound_->data_length;
  for (const WeightView& w : bound_->model.weights) {
    if (w.shape.size() == 1) r.weights_bytes += w.elements() * sizeof(float);
  }
  r.arena_bytes = decision_.arena_bytes();  // the embedding executor's is the same workspace
  return r;
}

void CpuBackend::set_thread_pool(ThreadPool* pool) {
  decision_.set_thread_pool(pool);
  embedding_.set_thread_pool(pool);
}

void CpuBackend::set_stop_check(StopCheck check) {
  decision_.set_stop_check(check);
  embedding_.set_stop_check(std::move(check));
}

void CpuBackend::set_profiling(bool on) {
  for (Executor* e : {&decision_, &embedding_}) {
    e->reset_profile();
    e->set_profiling(on);
  }
}

StepProfile CpuBackend::profile() const {
  StepProfile p = decision_.profile();
  p += embedding_.profile();
  return p;
}

}  // namespace laya
