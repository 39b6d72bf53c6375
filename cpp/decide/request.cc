// Agent.predict_batch for one state: validate every question, tokenize the scrubbed state once,
// build one row per question (Agent._encode_state), then decode each row (_decode_answers) and
// assemble the response with usage.
#include "decide/request.h"

#include <algorithm>

#include "decide/pyjson.h"
#include "decide/pyrepr.h"
#include "decide/render.h"

namespace laya::decide {

Result<PreparedRequest> prepare_request(const json::Value& state, const json::Value& questions,
                                        const TextEncoder& encode, const DecideConfig& config) {
  PreparedRequest out;
  const Dialect& dialect = config.dialect;
  if (dialect.newest_checks) {
    // predict_batch's call checks (laya-spec-current §6.1), before any question is looked at.
    if (!questions.is_object()) {
      return invalid_request(std::string("questions must be a dict of question id -> definition, got ") +
                             python_type_name(questions));
    }
    if (state.is_null()) return invalid_request("state must not be None; pass a string, dict, or list");
  }
  LAYA_ASSIGN_OR_RETURN(out.questions, parse_questions(questions, {.instructions_ensure_ascii = dialect.instructions_ensure_ascii,
                                                                   .newest_checks = dialect.newest_checks}));
  if (out.questions.empty()) return out;
  const std::string_view mask = config.mask_literal;
  const std::vector<int32_t> state_ids = encode(state_text(state, mask));
  out.state_tokens = static_cast<int64_t>(state_ids.size());
  const bool truncate_left = state.is_array();
  const MarkerFitMessage marker_message =
      dialect.newest_checks ? MarkerFitMessage::kOnlyMarkersFit : MarkerFitMessage::kOptionsExceedHeadMaxLen;
  for (const Question& q : out.questions) {
    const std::vector<int32_t> head_ids = encode(head_text(q, mask));
    std::vector<std::vector<int32_t>> option_ids;
    for (const std::string& option : render_options(q)) option_ids.push_back(encode(option_text(option, mask)));
    if (!q.option_order.empty()) {
      // Slot s carries option option_order[s]: the options are rendered in the caller's order and
      // laid out in slot order.
      std::vector<std::vector<int32_t>> slots;
      for (size_t option : q.option_order) slots.push_back(option_ids[option]);
      option_ids = std::move(slots);
    }
    LAYA_ASSIGN_OR_RETURN(Sequence seq, build_sequence(q.id, head_ids, option_ids, state_ids, truncate_left,
                                                       config.special, config.budgets, marker_message));
    out.input_tokens += static_cast<int64_t>(seq.ids.size());
    out.option_stats.push_back(seq.options);
    out.state_dropped.push_back(out.state_tokens - static_cast<int64_t>(seq.state_kept));
    out.rows.push_back({std::move(seq.ids), std::move(seq.markers), q.type});
  }
  return out;
}

namespace {

// usage's truncation keys (laya-spec-current §1), each with its leading ", ".
void append_truncation_usage(std::string& out, const PreparedRequest& request, TruncationUsage form) {
  int64_t dropped = 0;
  std::string truncated_questions;
  for (size_t i = 0; i < request.questions.size(); ++i) {
    dropped = std::max(dropped, request.state_dropped[i]);
    if (request.state_dropped[i] == 0) continue;
    if (!truncated_questions.empty()) truncated_questions += ", ";
    json::append_quoted(truncated_questions, request.questions[i].id, /*ensure_ascii=*/false);
  }
  const std::string counts = ", \"state_tokens\": " + std::to_string(request.state_tokens) +
                             ", \"state_tokens_dropped\": " + std::to_string(dropped);
  const std::string flags = std::string(", \"truncated\": ") + (dropped > 0 ? "true" : "false") +
                            ", \"truncated_questions\": [" + truncated_questions + "]";
  switch (form) {
    case TruncationUsage::kAlways: out += counts + flags; break;
    case TruncationUsage::kFlagsOnly: out += flags; break;
    case TruncationUsage::kFlagsThenCounts: out += flags + counts; break;
  }
}

}  // namespace

Result<std::string> answer_request(const PreparedRequest& request, const std::vector<RowOutput>& outputs,
                                   const DecideConfig& config, const std::optional<ExtraMember>& extra) {
  if (outputs.size() != request.rows.size()) {
    return internal_error("answer_request: the model returned " + std::to_string(outputs.size()) +
                          " rows for " + std::to_string(request.rows.size()) + " questions");
  }
  const AnswerFields fields{.answer_confidence = config.dialect.answer_confidence,
                            .rendered_legend = config.dialect.rendered_legend};
  std::string out = "{\"model\": \"laya-rl-agent\", \"answers\": {";
  for (size_t i = 0; i < request.questions.size(); ++i) {
    const Question& q = request.questions[i];
    const size_t option_count = request.rows[i].markers.size();
    const double t = config.calibration.temperature(q.type, option_count);
    LAYA_ASSIGN_OR_RETURN(Answer a, compute_answer(q, outputs[i].logits, outputs[i].act, t));
    if (i) out += ", ";
    json::append_quoted(out, q.id, /*ensure_ascii=*/false);
    out += ": ";
    if (config.min_confidence) {
      const GateVerdict verdict = gate_answer(*config.min_confidence, q.type, option_count, gated_value(a, fields));
      append_answer_json(out, q, a, fields, &verdict);
    } else {
      append_answer_json(out, q, a, fields);
    }
  }
  out += "}, \"usage\": {\"input_tokens\": " + std::to_string(request.input_tokens) + ", \"output_tokens\": 0";
  if (config.dialect.truncation_usage && !request.questions.empty()) {
    append_truncation_usage(out, request, config.truncation_usage);
  }
  if (config.dialect.usage_options) {
    std::string collapsed;
    for (size_t i = 0; i < request.questions.size(); ++i) {
      const OptionStats& s = request.option_stats[i];
      if (s.distinct >= s.total) continue;
      if (!collapsed.empty()) collapsed += ", ";
      json::append_quoted(collapsed, request.questions[i].id, /*ensure_ascii=*/false);
      collapsed += ": {\"total\": " + std::to_string(s.total) + ", \"distinct\": " + std::to_string(s.distinct) +
                   ", \"tokens_per_option\": " +
                   (s.tokens_per_option ? std::to_string(*s.tokens_per_option) : std::string("null")) + "}";
    }
    if (!collapsed.empty()) out += ", \"options\": {" + collapsed + "}";
  }
  out += '}';
  if (extra) {
    out += ", ";
    json::append_quoted(out, extra->key, /*ensure_ascii=*/false);
    out += ": " + extra->value_json;
  }
  out += '}';
  return out;
}

Result<std::string> predict(const json::Value& state, const json::Value& questions, const TextEncoder& encode,
                            const Forward& forward, const DecideConfig& config) {
  LAYA_ASSIGN_OR_RETURN(PreparedRequest request, prepare_request(state, questions, encode, config));
  std::vector<RowOutput> outputs;
  if (!request.rows.empty()) {
    LAYA_ASSIGN_OR_RETURN(outputs, forward(request.rows));
  }
  return answer_request(request, outputs, config);
}

Result<json::Value> parse_state(std::string_view text, StateForm form) {
  if (form == StateForm::kText) return json::Value::string(std::string(text));
  return json::parse(text, "state", {.allow_nonfinite = true});
}

}  // namespace laya::decide
