// A session's three parts and the request logic over its backend (see session.h).
#include "session/session.h"

#include <iterator>
#include <utility>

#include "decide/lang_temperatures.h"
#include "decide/render.h"
#include "decide/structured.h"
#include "decide/tournament.h"
#include "session/cpu_backend.h"

namespace laya {

namespace {

// Rows of one predict call run together until this many tokens; a bigger call is split so the
// arena stays near the size of one long batch (about 64 MB of activations for the English model).
constexpr size_t kMaxTokensPerForward = 4096;

}  // namespace

Status Session::configure(std::string_view rl_agent_json, std::string_view encoder_json,
                          std::string_view tokenizer_json, std::string_view tokenizer_config_json) {
  if (configs_) return invalid_request("configure: this session is already configured");
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
  configs_ = std::make_unique<const Configs>(Configs{std::move(config), std::move(tokenizer),
                                                     std::move(calibration.calibration), std::move(calibration.warning)});
  return {};
}

const std::string& Session::calibration_warning() const {
  static const std::string kNone;
  return configs_ ? configs_->calibration_warning : kNone;
}

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
  if (!configs_) return invalid_request(std::string(what) + ": configure the session first");
  if (loading_ || backend_) return invalid_request(std::string(what) + ": the weights are already planned");
  LAYA_ASSIGN_OR_RETURN(uint64_t needed, header_bytes_needed(header_bytes, file_size));
  if (header_bytes.size() < needed) {
    return invalid_checkpoint("model.safetensors: the header needs " + std::to_string(needed) +
                              " bytes, got " + std::to_string(header_bytes.size()));
  }
  std::string_view json(reinterpret_cast<const char*>(header_bytes.data()) + 8, needed - 8);
  return safetensors::parse_header(json, file_size, "model.safetensors");
}

Status Session::plan_outside(std::span<const std::byte> header_bytes, uint64_t file_size) {
  LAYA_ASSIGN_OR_RETURN(safetensors::Header header, read_header(header_bytes, file_size, "planOutside"));
  // The model's plan, derived once (its check of the tensors first); no data section here.
  LAYA_ASSIGN_OR_RETURN(ModelPlan plan, plan_model(configs_->config, header, nullptr));
  LAYA_ASSIGN_OR_RETURN(std::unique_ptr<OutsideBackend> outside,
                        OutsideBackend::create(std::move(header), std::move(plan)));
  outside_ = outside.get();
  bind(std::move(outside));
  return {};
}

Result<WeightPlan> Session::plan_weights(std::span<const std::byte> header_bytes, uint64_t file_size,
                                         WeightsMode mode, kernels::Compute compute) {
  LAYA_ASSIGN_OR_RETURN(safetensors::Header header, read_header(header_bytes, file_size, "planWeights"));
  LAYA_ASSIGN_OR_RETURN(loading_, WeightLoader::create(configs_->config, std::move(header), mode, compute));
  return loading_->weight_plan();
}

Status Session::weights_staged(size_t bytes) {
  if (!loading_) return invalid_request("weightsStaged: plan the weights first");
  return loading_->staged(bytes);
}

Status Session::weights_written(uint64_t bytes) {
  if (!loading_) return invalid_request("weightsWritten: plan the weights first");
  return loading_->written(bytes);
}

Status Session::finish_weights() {
  if (backend_) return invalid_request("finishWeights: the weights are already bound");
  if (!loading_) return invalid_request("finishWeights: plan the weights first");
  // Consumed either way: on failure the buffer (maybe half rearranged into panels) is released,
  // and loading starts over from plan_weights.
  std::unique_ptr<WeightLoader> loading = std::move(loading_);
  LAYA_ASSIGN_OR_RETURN(std::unique_ptr<const BoundModel> bound, loading->finish(configs_->config));
  LAYA_ASSIGN_OR_RETURN(std::unique_ptr<CpuBackend> backend, CpuBackend::create(std::move(bound)));
  bind(std::move(backend));
  return {};
}

void Session::bind(std::unique_ptr<ForwardBackend> backend) {
  backend_ = std::move(backend);
  backend_->set_thread_pool(settings_.pool);
  backend_->set_stop_check(settings_.stop_check);
  backend_->set_profiling(settings_.profiling);
}

Status Session::require_ready() const {
  if (!ready()) return invalid_request("this session has no weights yet: load model.safetensors first");
  return {};
}

Result<std::vector<DecisionOutput>> Session::forward_decisions(const Batch& batch, bool each_alone) {
  LAYA_RETURN_IF_ERROR(require_ready());
  LAYA_ASSIGN_OR_RETURN(CheckedBatch checked, check_batch(batch, backend_->limits(GraphKind::kDecision)));
  return run_decisions(checked, each_alone);
}

Result<std::vector<std::vector<float>>> Session::forward_embeddings(const Batch& batch, bool each_alone) {
  LAYA_RETURN_IF_ERROR(require_ready());
  LAYA_ASSIGN_OR_RETURN(CheckedBatch checked, check_batch(batch, backend_->limits(GraphKind::kEmbedding)));
  return run_embeddings(checked, each_alone);
}

Result<std::vector<DecisionOutput>> Session::run_decisions(const CheckedBatch& batch, bool each_alone) {
  if (!each_alone) return backend_->decisions(batch);
  std::vector<DecisionOutput> out;
  out.reserve(batch.batch().seqs());
  Batch one;
  for (int64_t s = 0; s < batch.batch().seqs(); ++s) {
    LAYA_ASSIGN_OR_RETURN(std::vector<DecisionOutput> alone, backend_->decisions(batch.sequence(s, one)));
    out.push_back(std::move(alone[0]));
  }
  return out;
}

Result<std::vector<std::vector<float>>> Session::run_embeddings(const CheckedBatch& batch, bool each_alone) {
  if (!each_alone) return backend_->embeddings(batch);
  std::vector<std::vector<float>> out;
  out.reserve(batch.batch().seqs());
  Batch one;
  for (int64_t s = 0; s < batch.batch().seqs(); ++s) {
    LAYA_ASSIGN_OR_RETURN(std::vector<std::vector<float>> alone, backend_->embeddings(batch.sequence(s, one)));
    out.push_back(std::move(alone[0]));
  }
  return out;
}

Result<decide::DecideConfig> Session::decide_config(const decide::RequestOptions& options) const {
  decide::DecideConfig c;
  const tok::SpecialIds& special = configs_->tokenizer.special_ids();
  c.special = {special.cls, special.sep, special.mask};
  c.mask_literal = configs_->tokenizer.mask_literal();
  c.budgets = {options.max_len.value_or(static_cast<int>(configs_->config.max_len)),
               options.head_max_len.value_or(static_cast<int>(configs_->config.head_max_len))};
  c.calibration = configs_->calibration;
  LAYA_ASSIGN_OR_RETURN(decide::LangTemperatures by_lang,
                        decide::resolve_lang_temperatures(options.lang_temperatures, configs_->calibration));
  if (const decide::Calibration* chosen = by_lang.find(options.lang)) c.calibration = *chosen;
  c.dialect = options.dialect;
  c.truncation_usage = options.truncation_usage;
  c.min_confidence = options.min_confidence;
  return c;
}

decide::TextEncoder Session::encoder() const {
  const tok::Tokenizer* tokenizer = &configs_->tokenizer;
  return [tokenizer](std::string_view text) { return tokenizer->encode(text); };
}

Result<decide::PreparedRequest> Session::prepare(const json::Value& state, const json::Value& questions,
                                                 const decide::RequestOptions& options) const {
  if (!configs_) return invalid_request("prepare: configure the session first");
  LAYA_ASSIGN_OR_RETURN(decide::DecideConfig config, decide_config(options));
  return decide::prepare_request(state, questions, encoder(), config);
}

Result<std::string> Session::answer(const decide::PreparedRequest& request,
                                    const std::vector<decide::RowOutput>& outputs,
                                    const decide::RequestOptions& options,
                                    const std::optional<decide::ExtraMember>& extra) const {
  if (!configs_) return invalid_request("answer: configure the session first");
  LAYA_ASSIGN_OR_RETURN(decide::DecideConfig config, decide_config(options));
  return decide::answer_request(request, outputs, config, extra);
}

Result<std::string> Session::predict(const json::Value& state, const json::Value& questions,
                                     const decide::RequestOptions& options) {
  LAYA_RETURN_IF_ERROR(require_ready());
  LAYA_ASSIGN_OR_RETURN(decide::PreparedRequest request, prepare(state, questions, options));
  LAYA_ASSIGN_OR_RETURN(std::vector<decide::RowOutput> outputs, forward_rows(request));
  return answer(request, outputs, options);
}

Result<std::string> Session::predict_shortlist(const json::Value& state, const json::Value& questions,
                                               const decide::RequestOptions& options, int64_t k,
                                               size_t max_length) {
  LAYA_RETURN_IF_ERROR(require_ready());
  auto embed_texts = [&](const std::vector<std::string>& texts) { return embed(texts, max_length); };
  LAYA_ASSIGN_OR_RETURN(decide::Shortlist shortlist, decide::shortlist_questions(state, questions, k, embed_texts));
  LAYA_ASSIGN_OR_RETURN(decide::PreparedRequest request, prepare(state, shortlist.questions, options));
  LAYA_ASSIGN_OR_RETURN(std::vector<decide::RowOutput> outputs, forward_rows(request));
  return answer(request, outputs, options, decide::ExtraMember{"shortlist", decide::shortlist_json(shortlist.entries)});
}

Result<std::vector<std::string>> Session::predict_batch(const std::vector<json::Value>& states,
                                                        const json::Value& questions,
                                                        const decide::RequestOptions& options) {
  LAYA_RETURN_IF_ERROR(require_ready());
  std::vector<decide::PreparedRequest> requests;
  requests.reserve(states.size());
  std::vector<const decide::Row*> rows;
  for (const json::Value& state : states) {
    LAYA_ASSIGN_OR_RETURN(decide::PreparedRequest request, prepare(state, questions, options));
    requests.push_back(std::move(request));
  }
  for (const decide::PreparedRequest& request : requests) {
    for (const decide::Row& row : request.rows) rows.push_back(&row);
  }
  LAYA_ASSIGN_OR_RETURN(std::vector<decide::RowOutput> outputs, forward_rows(rows));
  std::vector<std::string> answers;
  answers.reserve(requests.size());
  size_t first = 0;
  for (const decide::PreparedRequest& request : requests) {
    const size_t count = request.rows.size();
    const std::vector<decide::RowOutput> own(std::make_move_iterator(outputs.begin() + static_cast<std::ptrdiff_t>(first)),
                                             std::make_move_iterator(outputs.begin() + static_cast<std::ptrdiff_t>(first + count)));
    first += count;
    LAYA_ASSIGN_OR_RETURN(std::string answer_json, answer(request, own, options));
    answers.push_back(std::move(answer_json));
  }
  return answers;
}

Result<std::string> Session::predict_long(const json::Value& state, const json::Value& questions,
                                          const decide::RequestOptions& options, const decide::LongStateOptions& windows) {
  LAYA_RETURN_IF_ERROR(require_ready());
  // §7.1 item 5: the checkpoint's budgets always; and no gate (§7.3 item 2, §7.6).
  decide::RequestOptions call = options;
  call.max_len.reset();
  call.head_max_len.reset();
  call.min_confidence.reset();
  LAYA_ASSIGN_OR_RETURN(decide::DecideConfig config, decide_config(call));
  const decide::TextEncoder encode = encoder();
  const decide::LongStateTools tools{
      .state_ids = [&](const json::Value& s) { return encode(decide::state_text(s, config.mask_literal)); },
      .head_lengths = [&](const json::Value& q) -> Result<std::vector<size_t>> {
        // An empty state's row is the question half H_q and the closing [SEP].
        LAYA_ASSIGN_OR_RETURN(decide::PreparedRequest empty, prepare(json::Value::string(""), q, call));
        std::vector<size_t> lengths;
        for (const decide::Row& row : empty.rows) lengths.push_back(row.ids.size() - 1);
        return lengths;
      },
      .decode = [&](std::span<const int32_t> ids) { return configs_->tokenizer.decode({ids.begin(), ids.end()}); },
      .predict = [&](const json::Value& s) { return predict(s, questions, call); },
      .predict_batch = [&](const std::vector<json::Value>& texts) { return predict_batch(texts, questions, call); },
  };
  return decide::predict_long(state, questions, windows, config.budgets, tools);
}

Result<std::string> Session::predict_tournament(const json::Value& state, const json::Value& questions,
                                                const decide::RequestOptions& options, const json::Value& group_size) {
  LAYA_RETURN_IF_ERROR(require_ready());
  return decide::predict_tournament(state, questions, group_size,
                                    [&](const json::Value& s, const json::Value& q) { return predict(s, q, options); });
}

namespace {

// The call's options with `min_confidence` (a JSON value decide has already checked) as its gate.
Result<decide::RequestOptions> gated(decide::RequestOptions options, const json::Value& min_confidence) {
  if (min_confidence.is_null()) return options;
  LAYA_ASSIGN_OR_RETURN(decide::RequestOptions gate,
                        decide::parse_request_options(json::Value::object({{"min_confidence", min_confidence}})));
  options.min_confidence = gate.min_confidence;
  return options;
}

}  // namespace

Result<std::string> Session::decide(const json::Value& state, const DecideTarget& target, const decide::RequestOptions& options) {
  LAYA_RETURN_IF_ERROR(require_ready());
  auto predict_gated = [&](const json::Value& s, const json::Value& q) -> Result<std::string> {
    LAYA_ASSIGN_OR_RETURN(decide::RequestOptions call, gated(options, target.min_confidence));
    return predict(s, q, call);
  };
  return decide::decide(state, target.schema, target.questions, target.return_details, target.min_confidence, predict_gated);
}

Result<std::string> Session::decide_batch(const json::Value& states, const DecideTarget& target,
                                          const decide::RequestOptions& options) {
  LAYA_RETURN_IF_ERROR(require_ready());
  // decide_batch gates afterwards (laya-spec-current §10.5 item 5): the batch runs ungated.
  auto batch = [&](const std::vector<json::Value>& s, const json::Value& q) { return predict_batch(s, q, options); };
  return decide::decide_batch(states, target.schema, target.questions, target.return_details, target.min_confidence, batch);
}

Result<std::vector<decide::RowOutput>> Session::forward_rows(const decide::PreparedRequest& request) {
  std::vector<const decide::Row*> rows;
  rows.reserve(request.rows.size());
  for (const decide::Row& row : request.rows) rows.push_back(&row);
  return forward_rows(rows);
}

Result<std::vector<decide::RowOutput>> Session::forward_rows(const std::vector<const decide::Row*>& rows) {
  std::vector<decide::RowOutput> outputs;
  outputs.reserve(rows.size());
  size_t next = 0;
  while (next < rows.size()) {
    Batch batch;
    size_t tokens = 0;
    while (next < rows.size() && (batch.seqs() == 0 || tokens + rows[next]->ids.size() <= kMaxTokensPerForward)) {
      const decide::Row& row = *rows[next++];
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
  std::vector<std::vector<float>> out;
  out.reserve(texts.size());
  size_t next = 0;
  while (next < texts.size()) {
    Batch batch;
    size_t tokens = 0;
    while (next < texts.size()) {
      std::vector<int32_t> ids = configs_->tokenizer.encode_for_embedding(texts[next], max_length);
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
  settings_.pool = pool;
  if (backend_) backend_->set_thread_pool(pool);
}

void Session::set_stop_check(StopCheck check) {
  settings_.stop_check = std::move(check);
  if (backend_) backend_->set_stop_check(settings_.stop_check);
}

void Session::set_profiling(bool on) {
  settings_.profiling = on;
  if (backend_) backend_->set_profiling(on);
}

StepProfile Session::profile() const { return backend_ ? backend_->profile() : StepProfile{}; }

MemoryReport Session::memory() const {
  if (loading_) return {loading_->bytes(), 0};
  if (!backend_) return {};
  const BackendMemory m = backend_->memory();
  return {m.weights_bytes, m.arena_bytes};
}

}  // namespace laya
