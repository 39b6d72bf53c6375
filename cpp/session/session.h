// One loaded checkpoint, from its configs to answers. Three parts, each made whole or not at all:
// the configs and tokenizer (configure), the load in progress (plan_weights, the caller writes the
// data section into the planned buffer, finish_weights: weight_loader.h), and the backend that
// runs the graphs (forward_backend.h: the engine's own, or an outside one after plan_outside).
// The request logic (predict, shortlist, embed) is here once for both backends, and every batch
// is checked once, here, before a backend sees it. Every method reports bad input as an Error;
// none aborts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "decide/long_state.h"
#include "decide/request.h"
#include "decide/request_options.h"
#include "decide/shortlist.h"
#include "engine/batch.h"
#include "laya/config.h"
#include "safetensors/header.h"
#include "session/forward_backend.h"
#include "session/outside_backend.h"
#include "session/weight_loader.h"
#include "tok/tokenizer.h"
#include "util/status.h"

namespace laya {

struct MemoryReport {
  uint64_t weights_bytes = 0;  // the data section plus the f32 copies of vectors
  uint64_t arena_bytes = 0;    // activations and the kernels' scratch: one region both graphs share
};

class Session {
 public:
  Session() = default;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The four small files. Checks that the tokenizer's special ids fit the encoder's vocabulary.
  Status configure(std::string_view rl_agent_json, std::string_view encoder_json,
                   std::string_view tokenizer_json, std::string_view tokenizer_config_json);
  bool configured() const { return configs_ != nullptr; }

  // From the first bytes of model.safetensors (at least 8): how many bytes plan_weights needs.
  Result<uint64_t> header_bytes_needed(std::span<const std::byte> prefix, uint64_t file_size) const;
  // Validates the header against the configs, every tensor at once, before any weight byte is
  // read, then allocates the buffer the data section is written into (out_of_memory if it cannot).
  // `compute`: how the GEMMs on q8 weights multiply (kernels/compute.h).
  Result<WeightPlan> plan_weights(std::span<const std::byte> header_bytes, uint64_t file_size,
                                  WeightsMode mode = WeightsMode::kAsStored,
                                  kernels::Compute compute = kernels::Compute::kF32);
  // kQ8 staging only: the next `bytes` (at most stage_bytes) of the data section are at `stage`.
  Status weights_staged(size_t bytes);
  // Optional, as the data section arrives: its first `bytes` are written (GEMM matrices wholly
  // inside are arranged into panels now, overlapping the download).
  Status weights_written(uint64_t bytes);
  // Binds the written weights to the graphs. After this the session answers. On failure the
  // weights buffer is released and a load starts over from plan_weights.
  Status finish_weights();
  // Instead of plan_weights: the weights will live outside wasm memory, with a backend that runs
  // the batches itself (outside_backend.h). Validates the header as plan_weights does and keeps
  // the model's plan; nothing is allocated for the data section. After this the session answers
  // by replay through outside().
  Status plan_outside(std::span<const std::byte> header_bytes, uint64_t file_size);
  // The outside backend, or null when the engine runs the graphs (or nothing is loaded).
  OutsideBackend* outside() { return outside_; }
  bool ready() const { return backend_ != nullptr; }

  // Runs decision sequences packed into one batch (or each alone), and embedding sequences.
  Result<std::vector<DecisionOutput>> forward_decisions(const Batch& batch, bool each_alone);
  Result<std::vector<std::vector<float>>> forward_embeddings(const Batch& batch, bool each_alone);

  // Typed decisions (laya-spec §4, §5), with the call's options (decide/request_options.h: a
  // shape alone converts). Needs weights.
  Result<std::string> predict(const json::Value& state, const json::Value& questions,
                              const decide::RequestOptions& options);
  // The rows a request becomes, and the answer from given outputs: configs and tokenizer only.
  Result<decide::PreparedRequest> prepare(const json::Value& state, const json::Value& questions,
                                          const decide::RequestOptions& options) const;
  Result<std::string> answer(const decide::PreparedRequest& request,
                             const std::vector<decide::RowOutput>& outputs, const decide::RequestOptions& options,
                             const std::optional<decide::ExtraMember>& extra = std::nullopt) const;
  // predict_batch (laya-spec-current §6) for the states given: each answered exactly as predict
  // answers it alone (rows are unpadded, so a row's outputs never depend on its batch), the rows
  // of every state packed into the same forward passes. The call-level checks of §6.1 that span
  // all of a caller's states are the caller's (web/src/batch.ts); each state's own are predict's.
  Result<std::vector<std::string>> predict_batch(const std::vector<json::Value>& states, const json::Value& questions,
                                                 const decide::RequestOptions& options);
  // predict_long (laya-spec-current §7): a long state read in windows of its tokens, each decoded
  // back to text and answered; per question the most confident window's answer. The checkpoint's
  // budgets always apply and no gate does (a call's max_len, head_max_len, min_confidence are unused).
  Result<std::string> predict_long(const json::Value& state, const json::Value& questions,
                                   const decide::RequestOptions& options, const decide::LongStateOptions& windows);
  // predict_tournament (laya-spec-current §8): choices with many labels answered in knockout
  // rounds of group_size (the JSON value the caller gave: upstream's messages quote it).
  Result<std::string> predict_tournament(const json::Value& state, const json::Value& questions,
                                         const decide::RequestOptions& options, const json::Value& group_size);
  // decide / decide_batch (laya-spec-current §10): a JSON schema (or questions) answered as typed
  // values. `options` are predict's without a gate: decide's own min_confidence is the target's.
  struct DecideTarget {
    json::Value schema;     // null: not given
    json::Value questions;  // null: not given
    bool return_details = false;
    json::Value min_confidence;  // null: none
  };
  Result<std::string> decide(const json::Value& state, const DecideTarget& target, const decide::RequestOptions& options);
  Result<std::string> decide_batch(const json::Value& states, const DecideTarget& target,
                                   const decide::RequestOptions& options);
  // predict_shortlist (laya-spec §5.8): choice questions with more than k labels cut to the k
  // closest to the query by embedding (texts of at most max_length tokens), then predict; the
  // response carries "shortlist" after "usage". Needs weights.
  Result<std::string> predict_shortlist(const json::Value& state, const json::Value& questions,
                                        const decide::RequestOptions& options, int64_t k, size_t max_length);
  // embed_fn_from_agent (laya-spec §3.10): mean-pooled encoder states, one row of d per text.
  // max_length >= 1, as the boundary checks it (LayaSession.embed, wire::shortlist_options).
  Result<std::vector<std::vector<float>>> embed(const std::vector<std::string>& texts, size_t max_length);

  // The clamping warning of laya-spec §5.1, empty when no temperature was changed (or before configure).
  const std::string& calibration_warning() const;
  // configure() first.
  const LayaConfig& config() const { return configs_->config; }
  MemoryReport memory() const;

  // Threads for the forward passes (null: the calling thread alone); results are bit-identical
  // for any pool. The pool must outlive the session's use of it.
  void set_thread_pool(ThreadPool* pool);
  // Asked before every step of every forward pass; when it says stop, the call returns an aborted
  // error and the session stays ready for the next one (engine/executor.h StopCheck).
  void set_stop_check(StopCheck check);

  // Time by step kind over the runs since profiling was turned on (engine/step_profile.h), both
  // graphs summed. Turning it on starts from zero.
  void set_profiling(bool on);
  StepProfile profile() const;

 private:
  // What configure reads: immutable once made.
  struct Configs {
    LayaConfig config;
    tok::Tokenizer tokenizer;
    decide::Calibration calibration;
    std::string calibration_warning;
  };
  // The run settings a backend gets when it is bound, and whenever they change.
  struct RunSettings {
    ThreadPool* pool = nullptr;
    StopCheck stop_check;
    bool profiling = false;
  };

  // Header bytes -> a parsed header, for plan_weights and plan_outside (`what` names the call).
  Result<safetensors::Header> read_header(std::span<const std::byte> header_bytes, uint64_t file_size,
                                          const char* what) const;
  void bind(std::unique_ptr<ForwardBackend> backend);
  // The outputs of checked batches, each sequence alone when asked.
  Result<std::vector<DecisionOutput>> run_decisions(const CheckedBatch& batch, bool each_alone);
  Result<std::vector<std::vector<float>>> run_embeddings(const CheckedBatch& batch, bool each_alone);
  // The model's outputs for every row, in batches of at most kMaxTokensPerForward tokens.
  Result<std::vector<decide::RowOutput>> forward_rows(const decide::PreparedRequest& request);
  Result<std::vector<decide::RowOutput>> forward_rows(const std::vector<const decide::Row*>& rows);
  Status require_ready() const;
  // The checkpoint's settings with the call's options over them.
  Result<decide::DecideConfig> decide_config(const decide::RequestOptions& options) const;
  decide::TextEncoder encoder() const;

  std::unique_ptr<const Configs> configs_;
  std::unique_ptr<WeightLoader> loading_;     // from plan_weights to finish_weights
  std::unique_ptr<ForwardBackend> backend_;   // once the weights are bound or planned outside
  OutsideBackend* outside_ = nullptr;         // backend_, when it is the outside one
  RunSettings settings_;
};

}  // namespace laya
