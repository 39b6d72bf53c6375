// One predict(state, questions) call end to end, given the pieces that live elsewhere: a text
// encoder (the tokenizer, special tokens off), the special ids and mask literal, the budgets and
// calibration of the checkpoint, and a forward callback that runs the model on the rows (laya-spec §0).
// Split in two so a caller can run the model in between: prepare_request (validation, rendering,
// tokenization, build_sequence) and answer_request (the response JSON from the model's outputs).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "decide/answer.h"
#include "decide/confidence.h"
#include "decide/question.h"
#include "decide/sequence.h"
#include "util/json.h"
#include "util/status.h"

namespace laya::decide {

// Which upstream the request and the response follow (the options' `shape`).
struct Dialect {
  bool instructions_ensure_ascii = false;  // json.dumps of non-string instructions
  bool answer_confidence = true;           // answers[q].answer_confidence
  bool usage_options = true;               // usage.options for questions whose options collapsed
  // Upstream 0.3.22 on: usage's truncation keys, legend values as rendered text, the checks and
  // messages of laya-spec-current §12, and questions' `option_order`.
  bool truncation_usage = false;
  bool rendered_legend = false;
  bool newest_checks = false;

  // "current": upstream's main line, 0.3.22 to 0.4.0-dev (laya-spec-current).
  static Dialect current() { return {.truncation_usage = true, .rendered_legend = true, .newest_checks = true}; }
  // "0.3.21": upstream @8ef5b2d as laya-spec.md describes it.
  static Dialect v0_3_21() { return {}; }
  // "0.3.7": the shape of Laya 0.3.7 and of the kime / laya-js fixtures.
  static Dialect v0_3_7() {
    return {.instructions_ensure_ascii = true, .answer_confidence = false, .usage_options = false};
  }
};

// Which form usage's truncation keys take (laya-spec-current §1).
enum class TruncationUsage {
  kAlways,             // state_tokens, state_tokens_dropped, truncated, truncated_questions
  kFlagsOnly,          // upstream #687 by default: truncated, truncated_questions
  kFlagsThenCounts,    // #687 with state_token_counts=True: the flags, then the two counts
};

struct DecideConfig {
  SpecialIds special;
  std::string mask_literal;  // e.g. "[MASK]"; scrubbed from user text
  Budgets budgets;
  Calibration calibration;
  Dialect dialect;
  TruncationUsage truncation_usage = TruncationUsage::kAlways;  // when the dialect reports truncation
  std::optional<MinConfidence> min_confidence;                  // the gate, when set
};

// The tokenizer's ids for a text, with no special tokens added.
using TextEncoder = std::function<std::vector<int32_t>(std::string_view)>;

// One model input row per question.
struct Row {
  std::vector<int32_t> ids;
  std::vector<int32_t> markers;
  QType qtype = QType::kChoice;
};

// The model's raw outputs for one row: one logit per marker, the act head's logits.
struct RowOutput {
  std::vector<float> logits;
  std::vector<float> act;
};

// Runs the model on every row (in order) and returns one output per row.
using Forward = std::function<Result<std::vector<RowOutput>>(const std::vector<Row>&)>;

struct PreparedRequest {
  std::vector<Question> questions;  // validated, in request order
  std::vector<Row> rows;            // one per question
  std::vector<OptionStats> option_stats;
  int64_t input_tokens = 0;         // Σ row lengths (usage.input_tokens)
  int64_t state_tokens = 0;         // the state's ids before any cut
  std::vector<int64_t> state_dropped;  // per question: the state ids its row could not hold
};

// Validates the questions, renders and tokenizes the state once and every question's pieces, and
// builds each row. Empty `questions` gives no rows and never calls the encoder.
Result<PreparedRequest> prepare_request(const json::Value& state, const json::Value& questions,
                                        const TextEncoder& encode, const DecideConfig& config);

// A member the response carries after "usage", e.g. predict_shortlist's "shortlist".
struct ExtraMember {
  std::string key;
  std::string value_json;  // written as it is
};

// The response JSON, {"model": "laya-rl-agent", "answers": {...}, "usage": {...}}, from one output
// per row. Keys in upstream's order, numbers as Python prints them, non-ASCII kept as UTF-8.
Result<std::string> answer_request(const PreparedRequest& request, const std::vector<RowOutput>& outputs,
                                   const DecideConfig& config, const std::optional<ExtraMember>& extra = std::nullopt);

// prepare_request, forward, answer_request.
Result<std::string> predict(const json::Value& state, const json::Value& questions, const TextEncoder& encode,
                            const Forward& forward, const DecideConfig& config);

enum class StateForm {
  kText,  // the state is this text, verbatim
  kJson,  // the state is this JSON document (NaN / Infinity accepted, as Python's json reads them)
};

Result<json::Value> parse_state(std::string_view text, StateForm form);

}  // namespace laya::decide
