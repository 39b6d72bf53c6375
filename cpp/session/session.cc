#include "session/session.h"

#include "engine/gemm_panels.h"
#include "laya/checkpoint.h"

#include <cstdlib>
#include <cstring>
#include <utility>

namespace laya {

namespace {

// Rows of one predict call run together until this many tokens; a bigger call is split so the
// arena stays near the size of one long batch (about 64 MB of activations for the English model).
constexpr size_t kMaxTokensPerForward = 4096;


}  // namespace

Status Session::configure(std::string_view rl_agent_json, std::string_view encoder_json,
                          std::string_view tokenizer_json, std::string_view tokenizer_config_json) {
  if (config_) return invalid_request("configure: this session is already configured");
  LAYA_ASSIGN_OR_RETURN(LayaConfig config, parse_config(rl_agent_json, encoder_json));
  LAYA_ASSIGN_OR_RETURN(json::Value rl_agent, json::parse(rl_agent_json, "rl_agent_config.json"));
  LAYA_ASSIGN_OR_RETURN(decide::LoadedCalibration calibration, decide::load_calibration(rl_agent));
  LAYA_ASSIGN_OR_RETURN(tok::Tokenizer tokenizer, tok::Tokenizer::load(tokenizer_json, tokenizer_config_json));

  const tok::SpecialIds& special = tokenizer.special_ids();
  const int64_t vocab = config.encoder.vocab_size;
  for (auto [name, id] : {std::pair{"cls_token", special.cls}, std::pair{"sep_token", special.sep},
                          std::pair{"pad_token", special.pad}, std::pair{"mask_token", special.mask}}) {
    if (id < 0 || id >= vocab) {
      return invalid_checkpoint(std::string("tokenizer/tokenizer_config.json: ") + name + " has id " +
                                std::to_string(id) + ", outside the encoder's vocab_size " +
                                std::to_string(vocab));
    }
  }
  config_ = std::move(config);
  tokenizer_ = std::move(tokenizer);
  calibration_ = std::move(calibration.calibration);
  calibration_warning_ = std::move(calibration.warning);
  return {};
}

namespace {

// Which matrices become GEMM panels, from the model's plan (the configs and the header alone).
Result<PanelArranger> plan_panels(const ModelPlan& plan, const safetensors::Header& header, std::byte* data) {
  const Graph* graphs[] = {&plan.decision, &plan.embedding};
  return PanelArranger::create(graphs, plan.weights, {data, static_cast<size_t>(header.data_length)});
}

}  // namespace

Result<uint64_t> Session::header_bytes_needed(std::span<const std::byte> prefix, uint64_t file_size) const {
  if (prefix.size() < 8) {
    return invalid_checkpoint("model.safetensors: " + std::to_string(file_size) +
                              " bytes is too short for a safetensors file (need at least 8)");
  }
  LAYA_ASSIGN_OR_RETURN(uint64_t header_length,
                        safetensors::read_header_length(prefix.first<8>(), file_size, "model.safetensors"));
  return 8 + header_length;
}

Result<safetensors::Header> Session::read_header(std::span<const std::byte> header_bytes, uint64_t file_size,
                                                 const char* what) const {
  if (!config_) return invalid_request(std::string(what) + ": configure the session first");
  if (header_) return invalid_request(std::string(what) + ": the weights are already planned");
  LAYA_ASSIGN_OR_RETURN(uint64_t needed, header_bytes_needed(header_bytes, file_size));
  if (header_bytes.size() < needed) {
    return invalid_checkpoint("model.safetensors: the header needs " + std::to_string(needed) +
                              " bytes, got " + std::to_string(header_bytes.size()));
  }
  std::string_view json(reinterpret_cast<const char*>(header_bytes.data()) + 8, needed - 8);
  LAYA_ASSIGN_OR_RETURN(safetensors::Header header, safetensors::parse_header(json, file_size, "model.safetensors"));
  LAYA_RETURN_IF_ERROR(check_tensors(*config_, header));
  return header;
}

Status Session::plan_outside(std::span<const std::byte> header_bytes, uint64_t file_size) {
  LAYA_ASSIGN_OR_RETURN(safetensors::Header header, read_header(header_bytes, file_size, "planOutside"));
  LAYA_ASSIGN_OR_RETURN(ModelPlan plan, plan_model(*config_, header, nullptr));
  // Every check the CPU binding makes of shapes and wiring, on the stored form.
  LAYA_RETURN_IF_ERROR(check_graph(plan.decision, plan.weights, WeightForm::kPlanned));
  LAYA_RETURN_IF_ERROR(check_graph(plan.embedding, plan.weights, WeightForm::kPlanned));
  outside_ = std::make_unique<OutsideRuns>(batch_limits(plan.decision, plan.weights),
                                           batch_limits(plan.embedding, plan.weights), config_->act_outputs(),
                                           config_->encoder.hidden_size);
  header_ = std::move(header);
  outside_plan_ = std::move(plan);
  return {};
}

Status Session::check_outside_vector(size_t index, std::span<const std::byte> bytes) const {
  if (!outside_plan_) return invalid_request("outsideCheckVector: call planOutside first");
  if (index >= outside_plan_->weights.size()) {
    return invalid_request("outsideCheckVector: there is no weight " + std::to_string(index));
  }
  return check_vector(outside_plan_->weights[index], bytes);
}

Result<BucketPlan> Session::plan_outside_bucket(GraphKind graph, const RowCounts& bucket) const {
  if (!outside_plan_) return invalid_request("outsideProgram: call planOutside first");
  // The graphs were checked when the model was planned (plan_outside).
  const Graph& g = graph == GraphKind::kDecision ? outside_plan_->decision : outside_plan_->embedding;
  return plan_bucket(g, bucket);
}

Result<WeightPlan> Session::plan_weights(std::span<const std::byte> header_bytes, uint64_t file_size,
                                         WeightsMode mode) {
  LAYA_ASSIGN_OR_RETURN(safetensors::Header header, read_header(header_bytes, file_size, "planWeights"));
  // Quantizing while loading: the buffer holds the q8 data section, planned from the header alone,
  // and the bytes pass through a staging window; a q8 checkpoint is kept as it is.
  std::optional<safetensors::Header> source;
  std::optional<Q8Plan> q8;
  if (mode == WeightsMode::kQ8 && !is_q8_checkpoint(header)) {
    LAYA_ASSIGN_OR_RETURN(Q8Plan planned, plan_q8(header));
    LAYA_RETURN_IF_ERROR(check_tensors(*config_, planned.header));
    source = std::move(header);
    header = planned.header;
    q8 = std::move(planned);
  }

  // 64-byte aligned so the data section starts on a cache line; at least one byte so an empty
  // data section still gets a distinct pointer.
  const uint64_t length = header.data_length;
  if (length > SIZE_MAX - 64) {
    return out_of_memory("model.safetensors: a data section of " + std::to_string(length) +
                         " bytes does not fit in this address space");
  }
  void* p = std::aligned_alloc(64, (static_cast<size_t>(length) + 64) / 64 * 64);
  if (p == nullptr) {
    return out_of_memory("model.safetensors: cannot allocate " + std::to_string(length) +
                         " bytes of wasm memory for the weights");
  }
  data_.reset(static_cast<std::byte*>(p));
  // The model's plan, derived once: the panels are planned from it now, and binding binds it.
  Result<ModelPlan> plan = plan_model(*config_, header, data_.get());
  Result<PanelArranger> panels = plan.ok() ? plan_panels(plan.value(), header, data_.get()) : Result<PanelArranger>(plan.error());
  if (!panels.ok()) {
    data_.reset();
    return panels.error();
  }
  if (q8) {
    stage_.reset(static_cast<std::byte*>(std::malloc(kQ8StageBytes)));
    if (!stage_) {
      data_.reset();
      return out_of_memory("model.safetensors: cannot allocate the " + std::to_string(kQ8StageBytes) +
                           "-byte window that quantizes the weights to q8 as they arrive");
    }
    q8_streamer_ = std::make_unique<Q8Streamer>(*source, *q8, data_.get());
  }
  panels_.emplace(std::move(panels).value());
  plan_ = std::move(plan).value();
  header_ = std::move(header);
  if (q8) {
    return WeightPlan{data_.get(), source->data_offset, source->data_length, stage_.get(), kQ8StageBytes};
  }
  return WeightPlan{data_.get(), header_->data_offset, header_->data_length};
}

Status Session::weights_staged(size_t bytes) {
  if (!q8_streamer_) return invalid_request("weightsStaged: the weights were not planned to be quantized while loading");
  if (bytes > kQ8StageBytes) {
    return invalid_request("weightsStaged: " + std::to_string(bytes) + " bytes is more than the " +
                           std::to_string(kQ8StageBytes) + "-byte window");
  }
  Status s = q8_streamer_->consume({stage_.get(), bytes});
  if (!s.ok()) return s;
  panels_->arrange_written(static_cast<size_t>(q8_streamer_->target_written()));
  return {};
}

Status Session::finish_weights() {
  if (!header_) return invalid_request("finishWeights: plan the weights first");
  if (model_) return invalid_request("finishWeights: the weights are already bound");
  Status bound;
  if (q8_streamer_ && !q8_streamer_->done()) {
    bound = invalid_checkpoint("model.safetensors: the data section ended before every weight was quantized");
  } else {
    bound = bind_weights();
  }
  q8_streamer_.reset();
  stage_.reset();
  if (!bound.ok()) {
    // The buffer may be half rearranged into panels: it is released, and loading starts over
    // from plan_weights.
    data_.reset();
    header_.reset();
    plan_.reset();
  }
  panels_.reset();
  return bound;
}

Status Session::weights_written(uint64_t bytes) {
  if (!panels_) return invalid_request("weightsWritten: plan the weights first");
  if (q8_streamer_) return invalid_request("weightsWritten: these weights are quantized while loading: use weightsStaged");
  panels_->arrange_written(static_cast<size_t>(std::min(bytes, header_->data_length)));
  return {};
}

Status Session::bind_weights() {
  if (!plan_) return internal_error("finishWeights: the model's plan is missing");
  Result<LayaModel> bound_model = bind_model(*config_, std::move(*plan_));
  plan_.reset();
  LAYA_ASSIGN_OR_RETURN(LayaModel model, std::move(bound_model));
  auto bound = std::make_unique<LayaModel>(std::move(model));
  panels_->finish(bound->weights);
  // One workspace for both graphs: a call runs one of them at a time, and reads its outputs at once.
  auto workspace = std::make_shared<Workspace>();
  LAYA_ASSIGN_OR_RETURN(Executor decision, Executor::create(bound->decision, bound->weights, kernels::best_isa(), workspace));
  LAYA_ASSIGN_OR_RETURN(Executor embedding, Executor::create(bound->embedding, bound->weights, kernels::best_isa(), workspace));
  model_ = std::move(bound);
  decision_ = std::make_unique<Executor>(std::move(decision));
  embedding_ = std::make_unique<Executor>(std::move(embedding));
  set_profiling(profiling_);
  set_thread_pool(pool_);
  set_stop_check(stop_check_);
  return {};
}

Status Session::require_ready() const {
  if (!ready()) return invalid_request("this session has no weights yet: load model.safetensors first");
  return {};
}

Result<std::vector<DecisionOutput>> Session::forward_decisions(const Batch& batch, bool each_alone) {
  LAYA_RETURN_IF_ERROR(require_ready());
  const BatchLimits limits = outside_ ? outside_->decision_limits()
                                     : BatchLimits{decision_->vocab_size(), decision_->type_count(), true};
  LAYA_RETURN_IF_ERROR(batch.validate(limits.vocab_size, limits.type_count));
  const int64_t seqs = batch.seqs();
  for (int64_t s = 0; s < seqs; ++s) {
    if (batch.marker_starts[s + 1] == batch.marker_starts[s]) {
      return invalid_request("forward: sequence " + std::to_string(s) +
                             " has no markers; a decision needs at least one option");
    }
  }
  if (!each_alone) return run_decisions(batch);
  std::vector<DecisionOutput> out;
  out.reserve(seqs);
  for (int64_t s = 0; s < seqs; ++s) {
    Batch one;
    one.add(std::span(batch.ids).subspan(batch.seq_starts[s], batch.seq_starts[s + 1] - batch.seq_starts[s]),
            std::span(batch.markers)
                .subspan(batch.marker_starts[s], batch.marker_starts[s + 1] - batch.marker_starts[s]),
            batch.qtypes[s]);
    LAYA_ASSIGN_OR_RETURN(std::vector<DecisionOutput> alone, run_decisions(one));
    out.push_back(std::move(alone[0]));
  }
  return out;
}

Result<std::vector<DecisionOutput>> Session::run_decisions(const Batch& batch) {
  if (outside_) return outside_->decisions(batch);
  LAYA_RETURN_IF_ERROR(decision_->run(batch));
  std::vector<DecisionOutput> out(batch.seqs());
  const int64_t acts = config_->act_outputs();
  auto logits = decision_->output(*decision_->graph().logits);
  auto act = decision_->output(*decision_->graph().act);
  for (int64_t s = 0; s < batch.seqs(); ++s) {
    out[s].logits.assign(logits.begin() + batch.marker_starts[s], logits.begin() + batch.marker_starts[s + 1]);
    out[s].act.assign(act.begin() + s * acts, act.begin() + (s + 1) * acts);
  }
  return out;
}

Result<std::vector<std::vector<float>>> Session::run_embeddings(const Batch& batch) {
  if (outside_) return outside_->embeddings(batch);
  LAYA_RETURN_IF_ERROR(embedding_->run(batch));
  const int64_t d = config_->encoder.hidden_size;
  auto pooled = embedding_->output(*embedding_->graph().pooled);
  std::vector<std::vector<float>> out(batch.seqs());
  for (int64_t s = 0; s < batch.seqs(); ++s) out[s].assign(pooled.begin() + s * d, pooled.begin() + (s + 1) * d);
  return out;
}

Result<std::vector<std::vector<float>>> Session::forward_embeddings(const Batch& batch, bool each_alone) {
  LAYA_RETURN_IF_ERROR(require_ready());
  if (!each_alone) return run_embeddings(batch);
  std::vector<std::vector<float>> out;
  out.reserve(batch.seqs());
  for (int64_t s = 0; s < batch.seqs(); ++s) {
    Batch one;
    one.add(std::span(batch.ids).subspan(batch.seq_starts[s], batch.seq_starts[s + 1] - batch.seq_starts[s]));
    LAYA_ASSIGN_OR_RETURN(std::vector<std::vector<float>> alone, run_embeddings(one));
    out.push_back(std::move(alone[0]));
  }
  return out;
}

decide::DecideConfig Session::decide_config(const decide::Dialect& dialect) const {
  decide::DecideConfig c;
  const tok::SpecialIds& special = tokenizer_->special_ids();
  c.special = {special.cls, special.sep, special.mask};
  c.mask_literal = tokenizer_->mask_literal();
  c.budgets = {static_cast<int>(config_->max_len), static_cast<int>(config_->head_max_len)};
  c.calibration = calibration_;
  c.dialect = dialect;
  return c;
}

decide::TextEncoder Session::encoder() const {
  const tok::Tokenizer* tokenizer = &*tokenizer_;
  return [tokenizer](std::string_view text) { return tokenizer->encode(text); };
}

Result<decide::PreparedRequest> Session::prepare(const json::Value& state, const json::Value& questions,
                                                 const decide::Dialect& dialect) const {
  if (!config_) return invalid_request("prepare: configure the session first");
  return decide::prepare_request(state, questions, encoder(), decide_config(dialect));
}

Result<std::string> Session::answer(const decide::PreparedRequest& request,
                                    const std::vector<decide::RowOutput>& outputs, const decide::Dialect& dialect,
                                    const std::optional<decide::ExtraMember>& extra) const {
  if (!config_) return invalid_request("answer: configure the session first");
  return decide::answer_request(request, outputs, decide_config(dialect), extra);
}

Result<std::string> Session::predict(const json::Value& state, const json::Value& questions,
                                     const decide::Dialect& dialect) {
  LAYA_RETURN_IF_ERROR(require_ready());
  LAYA_ASSIGN_OR_RETURN(decide::PreparedRequest request, prepare(state, questions, dialect));
  LAYA_ASSIGN_OR_RETURN(std::vector<decide::RowOutput> outputs, forward_rows(request));
  return answer(request, outputs, dialect);
}

Result<std::string> Session::predict_shortlist(const json::Value& state, const json::Value& questions,
                                               const decide::Dialect& dialect, int64_t k, size_t max_length) {
  LAYA_RETURN_IF_ERROR(require_ready());
  auto embed_texts = [&](const std::vector<std::string>& texts) { return embed(texts, max_length); };
  LAYA_ASSIGN_OR_RETURN(decide::Shortlist shortlist, decide::shortlist_questions(state, questions, k, embed_texts));
  LAYA_ASSIGN_OR_RETURN(decide::PreparedRequest request, prepare(state, shortlist.questions, dialect));
  LAYA_ASSIGN_OR_RETURN(std::vector<decide::RowOutput> outputs, forward_rows(request));
  return answer(request, outputs, dialect, decide::ExtraMember{"shortlist", decide::shortlist_json(shortlist.entries)});
}

Result<std::vector<decide::RowOutput>> Session::forward_rows(const decide::PreparedRequest& request) {
  std::vector<decide::RowOutput> outputs;
  outputs.reserve(request.rows.size());
  size_t next = 0;
  while (next < request.rows.size()) {
    Batch batch;
    size_t tokens = 0;
    while (next < request.rows.size() &&
           (batch.seqs() == 0 || tokens + request.rows[next].ids.size() <= kMaxTokensPerForward)) {
      const decide::Row& row = request.rows[next++];
      batch.add(row.ids, row.markers, static_cast<int32_t>(row.qtype));
      tokens += row.ids.size();
    }
    LAYA_ASSIGN_OR_RETURN(std::vector<DecisionOutput> chunk, forward_decisions(batch, false));
    for (DecisionOutput& o : chunk) outputs.push_back({std::move(o.logits), std::move(o.act)});
  }
  return outputs;
}

Result<std::vector<std::vector<float>>> Session::embed(const std::vector<std::string>& texts, size_t max_length) {
  LAYA_RETURN_IF_ERROR(require_ready());
  if (max_length == 0) return invalid_request("embed: maxLength must be a positive integer, got 0");
  std::vector<std::vector<float>> out;
  out.reserve(texts.size());
  size_t next = 0;
  while (next < texts.size()) {
    Batch batch;
    size_t tokens = 0;
    while (next < texts.size()) {
      std::vector<int32_t> ids = tokenizer_->encode_for_embedding(texts[next], max_length);
      if (batch.seqs() > 0 && tokens + ids.size() > kMaxTokensPerForward) break;
      if (ids.empty()) {
        // Only a post-processor with no specials can give no ids; upstream's mean over zero
        // tokens is zero (denominator clamped to 1).
        return invalid_request("embed: text " + std::to_string(next) + " has no tokens to pool");
      }
      tokens += ids.size();
      batch.add(ids);
      ++next;
    }
    LAYA_ASSIGN_OR_RETURN(std::vector<std::vector<float>> pooled, forward_embeddings(batch, false));
    for (auto& row : pooled) out.push_back(std::move(row));
  }
  return out;
}

void Session::set_thread_pool(ThreadPool* pool) {
  pool_ = pool;
  for (Executor* e : {decision_.get(), embedding_.get()}) {
    if (e != nullptr) e->set_thread_pool(pool);
  }
}

void Session::set_stop_check(StopCheck check) {
  stop_check_ = std::move(check);
  for (Executor* e : {decision_.get(), embedding_.get()}) {
    if (e != nullptr) e->set_stop_check(stop_check_);
  }
}

void Session::set_profiling(bool on) {
  profiling_ = on;
  for (Executor* e : {decision_.get(), embedding_.get()}) {
    if (e == nullptr) continue;
    e->reset_profile();
    e->set_profiling(on);
  }
}

StepProfile Session::profile() const {
  StepProfile p;
  for (const Executor* e : {decision_.get(), embedding_.get()}) {
    if (e != nullptr) p += e->profile();
  }
  return p;
}

MemoryReport Session::memory() const {
  MemoryReport r;
  // An outside backend holds the weights in its own memory, not here.
  if (header_ && !outside_) r.weights_bytes = header_->data_length;
  if (model_) {
    for (const WeightView& w : model_->weights) {
      if (w.shape.size() == 1) r.weights_bytes += w.elements() * sizeof(float);
    }
  }
  // The two executors share one workspace (bind_weights): counted once.
  if (decision_ != nullptr) {
    r.arena_bytes = decision_->arena_bytes();
    r.scratch_bytes = decision_->scratch_bytes();
  }
  return r;
}

}  // namespace laya
