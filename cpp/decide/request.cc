// Agent.predict_batch for one state: validate every question, tokenize the scrubbed state once,
// build one row per question (Agent._encode_state), then decode each row (_decode_answers) and
// assemble the response with usage.
#include "decide/request.h"

#include "decide/pyjson.h"
#include "decide/render.h"

namespace laya::decide {

Result<PreparedRequest> prepare_request(const json::Value& state, const json::Value& questions,
                                        const TextEncoder& encode, const DecideConfig& config) {
  PreparedRequest out;
  LAYA_ASSIGN_OR_RETURN(out.questions,
                        parse_questions(questions, {.instructions_ensure_ascii = config.dialect.instructions_ensure_ascii}));
  if (out.questions.empty()) return out;
  const std::string_view mask = config.mask_literal;
  const std::vector<int32_t> state_ids = encode(state_text(state, mask));
  const bool truncate_left = state.is_array();
  for (const Question& q : out.questions) {
    const std::vector<int32_t> head_ids = encode(head_text(q, mask));
    std::vector<std::vector<int32_t>> option_ids;
    for (const std::string& option : render_options(q)) option_ids.push_back(encode(option_text(option, mask)));
    LAYA_ASSIGN_OR_RETURN(Sequence seq, build_sequence(q.id, head_ids, option_ids, state_ids, truncate_left,
                                                       config.special, config.budgets));
    out.input_tokens += static_cast<int64_t>(seq.ids.size());
    out.option_stats.push_back(seq.options);
    out.rows.push_back({std::move(seq.ids), std::move(seq.markers), q.type});
  }
  return out;
}

Result<std::string> answer_request(const PreparedRequest& request, const std::vector<RowOutput>& outputs,
                                   const DecideConfig& config, const std::optional<ExtraMember>& extra) {
  if (outputs.size() != request.rows.size()) {
    return internal_error("answer_request: the model returned " + std::to_string(outputs.size()) +
                          " rows for " + std::to_string(request.rows.size()) + " questions");
  }
  std::string out = "{\"model\": \"laya-rl-agent\", \"answers\": {";
  for (size_t i = 0; i < request.questions.size(); ++i) {
    const Question& q = request.questions[i];
    const double t = config.calibration.temperature(q.type, request.rows[i].markers.size());
    LAYA_ASSIGN_OR_RETURN(Answer a, compute_answer(q, outputs[i].logits, outputs[i].act, t));
    if (i) out += ", ";
    json::append_quoted(out, q.id, /*ensure_ascii=*/false);
    out += ": ";
    append_answer_json(out, q, a, config.dialect.answer_confidence);
  }
  out += "}, \"usage\": {\"input_tokens\": " + std::to_string(request.input_tokens) + ", \"output_tokens\": 0";
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
