// One loaded checkpoint, from its configs to answers: the configs and tokenizer (configure), the
// weights streamed straight into one buffer (header_bytes_needed, plan_weights, then the caller
// writes the data section into weight_buffer(), then finish_weights), and the executors of the
// decision and embedding graphs. Every method reports bad input as an Error; none aborts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "decide/request.h"
#include "decide/shortlist.h"
#include "engine/batch.h"
#include "engine/executor.h"
#include "engine/gemm_panels.h"
#include "laya/config.h"
#include "laya/model.h"
#include "laya/q8_checkpoint.h"
#include "session/outside_runs.h"
#include "safetensors/header.h"
#include "tok/tokenizer.h"
#include "util/malloc_bytes.h"
#include "util/status.h"

namespace laya {

// Where the data section of model.safetensors goes: file byte i >= data_offset lives at
// pointer[i - data_offset].
struct WeightPlan {
  std::byte* pointer = nullptr;
  uint64_t data_offset = 0;
  uint64_t data_length = 0;
  // Quantizing while streaming (WeightsMode::kQ8 on a float checkpoint): the data section is not
  // written at `pointer` but passed through a staging window of `stage_bytes` at `stage`, one
  // window at a time, each reported with weights_staged.
  std::byte* stage = nullptr;
  size_t stage_bytes = 0;
};

// How plan_weights keeps the weights: as the file stores them, or quantized to q8 as they stream
// in (docs/q8-format.md; a checkpoint that already is q8 is kept as it is either way).
enum class WeightsMode { kAsStored, kQ8 };

// The staging window of WeightsMode::kQ8: the extra memory of quantizing while loading.
inline constexpr size_t kQ8StageBytes = size_t{1} << 20;

struct MemoryReport {
  uint64_t weights_bytes = 0;  // the data section plus the f32 copies of vectors
  uint64_t arena_bytes = 0;    // the activation arena both graphs share
  uint64_t scratch_bytes = 0;  // kernel scratch (packed panels, tables), shared too
};

class Session {
 public:
  Session() = default;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The four small files. Checks that the tokenizer's special ids fit the encoder's vocabulary.
  Status configure(std::string_view rl_agent_json, std::string_view encoder_json,
                   std::string_view tokenizer_json, std::string_view tokenizer_config_json);
  bool configured() const { return config_.has_value(); }

  // From the first bytes of model.safetensors (at least 8): how many bytes plan_weights needs.
  Result<uint64_t> header_bytes_needed(std::span<const std::byte> prefix, uint64_t file_size) const;
  // Validates the header against the configs, every tensor at once, before any weight byte is
  // read, then allocates the buffer the data section is written into (out_of_memory if it cannot).
  Result<WeightPlan> plan_weights(std::span<const std::byte> header_bytes, uint64_t file_size,
                                  WeightsMode mode = WeightsMode::kAsStored);
  // kQ8 staging only: the next `bytes` (at most stage_bytes) of the data section are at `stage`.
  // They are quantized (or copied) into the weights buffer now, and the window may be reused.
  Status weights_staged(size_t bytes);
  // Optional, as the data section arrives: its first `bytes` are written. GEMM matrices wholly
  // inside are arranged into panels now, overlapping the download (engine/gemm_panels.h).
  Status weights_written(uint64_t bytes);
  // Binds the written weights to the graphs, arranging the GEMM matrices not yet arranged. After
  // this the session answers. On failure the weights buffer is released and a load starts over
  // from plan_weights.
  Status finish_weights();
  // Instead of plan_weights: the weights will live outside wasm memory, with a backend that runs
  // the batches itself (outside_runs.h). Validates the header as plan_weights does and keeps the
  // model's plan; nothing is allocated for the data section. After this the session answers by
  // replay through outside().
  Status plan_outside(std::span<const std::byte> header_bytes, uint64_t file_size);
  OutsideRuns* outside() { return outside_.get(); }
  // The checkpoint's header, once planned (plan_weights or plan_outside).
  const safetensors::Header& header() const { return *header_; }
  // The outside backend's model: the plan (graphs, tensors as stored and where their bytes are).
  const ModelPlan* outside_plan() const { return outside_plan_ ? &*outside_plan_ : nullptr; }
  // The outside backend's copy of 1-D weight `index` (norm weight or bias), checked finite as
  // binding checks the engine's own; invalid_checkpoint names the tensor.
  Status check_outside_vector(size_t index, std::span<const std::byte> bytes) const;
  // A graph planned for `bucket` (plan/bucket.h's bucket_for of a batch's rows), for the outside backend.
  Result<BucketPlan> plan_outside_bucket(GraphKind graph, const RowCounts& bucket) const;
  bool ready() const { return decision_ != nullptr || outside_ != nullptr; }

  // Runs decision sequences packed into one batch (or each alone), and embedding sequences.
  Result<std::vector<DecisionOutput>> forward_decisions(const Batch& batch, bool each_alone);
  Result<std::vector<std::vector<float>>> forward_embeddings(const Batch& batch, bool each_alone);

  // Typed decisions (laya-spec §4, §5). Needs weights.
  Result<std::string> predict(const json::Value& state, const json::Value& questions,
                              const decide::Dialect& dialect);
  // The rows a request becomes, and the answer from given outputs: configs and tokenizer only.
  Result<decide::PreparedRequest> prepare(const json::Value& state, const json::Value& questions,
                                          const decide::Dialect& dialect) const;
  Result<std::string> answer(const decide::PreparedRequest& request,
                             const std::vector<decide::RowOutput>& outputs, const decide::Dialect& dialect,
                             const std::optional<decide::ExtraMember>& extra = std::nullopt) const;
  // predict_shortlist (laya-spec §5.8): choice questions with more than k labels cut to the k
  // closest to the query by embedding (texts of at most max_length tokens), then predict; the
  // response carries "shortlist" after "usage". Needs weights.
  Result<std::string> predict_shortlist(const json::Value& state, const json::Value& questions,
                                        const decide::Dialect& dialect, int64_t k, size_t max_length);
  // embed_fn_from_agent (laya-spec §3.10): mean-pooled encoder states, one row of d per text.
  Result<std::vector<std::vector<float>>> embed(const std::vector<std::string>& texts, size_t max_length);

  // The clamping warning of laya-spec §5.1, empty when no temperature was changed.
  const std::string& calibration_warning() const { return calibration_warning_; }
  const LayaConfig& config() const { return *config_; }
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
  Status bind_weights();
  // Header bytes -> a validated header (plan_weights and plan_outside).
  Result<safetensors::Header> read_header(std::span<const std::byte> header_bytes, uint64_t file_size,
                                          const char* what) const;
  // One batch on the engine's executor, or the outside backend's outputs.
  Result<std::vector<DecisionOutput>> run_decisions(const Batch& batch);
  Result<std::vector<std::vector<float>>> run_embeddings(const Batch& batch);
  // The model's outputs for every row, in batches of at most kMaxTokensPerForward tokens.
  Result<std::vector<decide::RowOutput>> forward_rows(const decide::PreparedRequest& request);
  Status require_ready() const;
  decide::DecideConfig decide_config(const decide::Dialect& dialect) const;
  decide::TextEncoder encoder() const;

  std::optional<LayaConfig> config_;
  std::optional<tok::Tokenizer> tokenizer_;
  decide::Calibration calibration_;
  std::string calibration_warning_;
  std::optional<safetensors::Header> header_;
  MallocBytes data_;
  std::optional<PanelArranger> panels_;  // from plan_weights to finish_weights
  std::optional<ModelPlan> plan_;         // from plan_weights to finish_weights: bound there
  std::unique_ptr<Q8Streamer> q8_streamer_;  // kQ8 staging, from plan_weights to finish_weights
  MallocBytes stage_;
  std::unique_ptr<LayaModel> model_;
  std::unique_ptr<Executor> decision_;
  std::unique_ptr<Executor> embedding_;
  std::optional<ModelPlan> outside_plan_;
  std::unique_ptr<OutsideRuns> outside_;
  bool profiling_ = false;
  ThreadPool* pool_ = nullptr;
  StopCheck stop_check_;
};

}  // namespace laya
