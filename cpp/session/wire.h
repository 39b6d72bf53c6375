// The JSON the wasm boundary speaks (docs/architecture.md): forward inputs and outputs in the
// reference fixtures' format, prepared rows, model outputs given to `answer`, memory reports and
// errors. Kept apart from Session so the session's API stays typed and the bind file stays thin.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "decide/request.h"
#include "engine/batch.h"
#include "session/session.h"
#include "util/json.h"
#include "util/status.h"

namespace laya::wire {

// {"inputs": [{"ids", "markers", "qtype"}...], "embed_inputs": [{"ids"}...]} -> two batches.
// Either list may be absent. Errors name the list, the index and the field.
struct ForwardInputs {
  Batch decisions;
  Batch embeddings;
};
Result<ForwardInputs> forward_inputs(const json::Value& document);

// {"expected": [{"logits", "act"}...], "embed_expected": [{"pooled"}...]}, every float written
// with the fewest digits that read back (as f32) to the same value.
std::string forward_outputs(const std::vector<DecisionOutput>& decisions,
                            const std::vector<std::vector<float>>& embeddings);

// The same outputs for a typed array: every float end to end (each decision's logits then its act,
// in order, then each embedding), and the lengths that cut it back,
// {"logits": [n per decision], "act": [n per decision], "pooled": [n per embedding]}.
struct FlatForwardOutputs {
  std::vector<float> floats;
  std::string lengths;
};
FlatForwardOutputs flatten_forward_outputs(const std::vector<DecisionOutput>& decisions,
                                           const std::vector<std::vector<float>>& embeddings);

// {"questions": [{"qid", "ids", "markers", "qtype"}...], "input_tokens": n}
std::string prepared_request(const decide::PreparedRequest& request);

// {"logits": [[...] per question], "act": [[...] per question]} -> one RowOutput per question.
Result<std::vector<decide::RowOutput>> row_outputs(const json::Value& document, size_t questions);

// {"embeddings": [[dim floats] per text]} from the rows laid end to end.
std::string embeddings(std::span<const float> rows, size_t dim);

// predictShortlist's options {"k", "maxLength", "shape"}: k (default 20) and maxLength (default
// 512) must be positive integers; shape is read by the caller.
struct ShortlistOptions {
  int64_t k = 20;
  size_t max_length = 512;
};
Result<ShortlistOptions> shortlist_options(const json::Value& options);

// The summary of the parsed configs the package shows as model.config: encoder, modelName (only
// when the config has one), modelType, hiddenSize, encoderLayers, attentionHeads, intermediateSize, vocabSize, headLayers,
// maxLen, headMaxLen, actOutputs.
std::string config_summary(const LayaConfig& config);

// ["text", ...] -> texts; a non-string item is an error naming its index.
Result<std::vector<std::string>> texts(const json::Value& document);

std::string memory_report(const MemoryReport& report, uint64_t wasm_memory_bytes);

// {"error": {"code": "...", "message": "..."}}
std::string error(const Error& error);

// The shortest decimal that reads back as the same f32.
void append_float(std::string& out, float value);

}  // namespace laya::wire
