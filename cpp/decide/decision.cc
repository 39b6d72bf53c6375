// decide / decide_batch of upstream's structured.py (laya-spec-current §10.4-10.5): the call, the
// min_confidence gate applied again to the parsed response, and the projection of each answer
// onto its field's typed value.
#include <cmath>
#include <optional>

#include "decide/confidence.h"
#include "decide/pyfloat.h"
#include "decide/pyjson.h"
#include "decide/pyrepr.h"
#include "decide/structured.h"

namespace laya::decide {
namespace {

// What the answers are read against: the planned fields, or none in questions= mode.
struct Request {
  std::optional<DecisionPlan> plan;
  json::Value questions;
};

// Exactly one of the two is not null (checked by the caller).
Result<Request> request_of(const json::Value& schema, const json::Value& questions) {
  if (schema.is_null()) return Request{std::nullopt, questions};
  LAYA_ASSIGN_OR_RETURN(DecisionPlan plan, plan_schema(schema));
  json::Value planned = plan.questions;
  return Request{std::move(plan), std::move(planned)};
}

// A finite number, as the gate and answer_confidence accept it.
std::optional<double> finite(const json::Value* v) {
  if (v == nullptr || !v->is_number() || !std::isfinite(v->as_double())) return std::nullopt;
  return v->as_double();
}

std::optional<QType> answer_type(const json::Value& answer) {
  const json::Value* type = answer.find("type");
  if (type == nullptr || !type->is_string()) return std::nullopt;
  if (type->as_string() == "choice") return QType::kChoice;
  if (type->as_string() == "score") return QType::kScore;
  if (type->as_string() == "noul") return QType::kNoul;
  return std::nullopt;
}

// The answer with the gate's keys written afresh after its other members (§4.3 items 3-6).
json::Value gated(const json::Value& answer, const MinConfidence& gate) {
  const std::optional<QType> type = answer.is_object() ? answer_type(answer) : std::nullopt;
  if (!type) return answer;
  const json::Value* probabilities = answer.find("probabilities");
  const size_t option_count = *type == QType::kNoul ? 2
                              : probabilities != nullptr && probabilities->is_object()
                                  ? dict_members(*probabilities).size()
                                  : 0;
  std::optional<double> compared = finite(answer.find("answer_confidence"));
  if (!compared) compared = finite(answer.find("confidence"));
  if (compared) compared = python_round(*compared, 4);
  const GateVerdict verdict = gate_answer(gate, *type, option_count, compared);
  std::vector<json::Member> members;
  for (const json::Member* m : dict_members(answer)) {
    if (m->first != "low_confidence" && m->first != "abstention" && m->first != "abstention_threshold") {
      members.push_back(*m);
    }
  }
  if (verdict.low_confidence) members.emplace_back("low_confidence", json::Value::boolean(true));
  members.emplace_back("abstention", json::Value::string(verdict.abstention));
  members.emplace_back("abstention_threshold", json::Value::number(float_json(verdict.threshold)));
  return json::Value::object(std::move(members));
}

bool flagged(const json::Value& answer) {
  const json::Value* low = answer.find("low_confidence");
  return low != nullptr && low->is_bool() && low->as_bool();
}

double rounded_noul(const json::Value& answer) {
  const std::optional<double> noul = finite(answer.find("noul"));
  return noul ? python_round(*noul, 4) : 0.0;
}

// The typed value of one field's answer (laya-spec-current §10.4 item 4).
json::Value project(const PlannedField& field, const json::Value& answer) {
  if (flagged(answer)) return json::Value();
  switch (field.type) {
    case QType::kNoul: return json::Value::boolean(rounded_noul(answer) >= 0.5);
    case QType::kScore: {
      const json::Value* probabilities = answer.find("probabilities");
      const size_t n = probabilities != nullptr && probabilities->is_object() ? dict_members(*probabilities).size() : 0;
      int64_t index = 0;
      if (n > 0) {
        std::optional<double> best;
        for (size_t i = 0; i < n; ++i) {
          const std::optional<double> p = finite(probabilities->find(std::to_string(i)));
          if (p && (!best || *p > *best)) {
            best = p;
            index = static_cast<int64_t>(i);
          }
        }
      } else {
        const std::optional<double> score = finite(answer.find("score"));
        index = score ? static_cast<int64_t>(python_round(*score, 0)) : 0;
      }
      return json::Value::number(std::to_string(field.minimum + index));
    }
    case QType::kChoice: {
      const json::Value* choice = answer.find("choice");
      const std::string label = choice == nullptr ? "None" : python_str(*choice);
      for (size_t i = 0; i < field.labels.size(); ++i) {
        if (field.labels[i] == label) return field.enum_values[i];
      }
      return json::Value::string(label);
    }
  }
  return json::Value();
}

// float(x) as json.dumps writes it.
json::Value as_float(const json::Value* v) {
  const std::optional<double> x = finite(v);
  return x ? json::Value::number(float_json(*x)) : json::Value();
}

json::Value probabilities_of(const json::Value& answer) {
  if (answer_type(answer) == QType::kNoul) {
    const double p = rounded_noul(answer);
    return json::Value::object({{"false", json::Value::number(float_json(python_round(1 - p, 4)))},
                                {"true", json::Value::number(float_json(python_round(p, 4)))}});
  }
  const json::Value* probabilities = answer.find("probabilities");
  return probabilities != nullptr ? *probabilities : json::Value::object({});
}

// One response read back: gated again, projected, and written as the values or the DecisionResult.
Result<std::string> decision_json(const std::string& response_text, const Request& request,
                                  const std::optional<MinConfidence>& gate, bool return_details) {
  LAYA_ASSIGN_OR_RETURN(json::Value response, json::parse(response_text, "decide response", {.allow_nonfinite = true}));
  const json::Value* raw_answers = response.is_object() ? response.find("answers") : nullptr;
  if (raw_answers == nullptr || !raw_answers->is_object()) return internal_error("decide: the response has no answers");
  std::vector<json::Member> answers;
  for (const json::Member* m : dict_members(*raw_answers)) {
    answers.emplace_back(m->first, gate ? gated(m->second, *gate) : m->second);
  }
  const json::Value answers_value = json::Value::object(answers);
  std::vector<json::Member> values;
  std::vector<json::Member> confidence;
  std::vector<json::Member> probabilities;
  std::vector<json::Member> answer_confidence;
  auto add = [&](const std::string& key, const json::Value& answer, json::Value value) {
    values.emplace_back(key, std::move(value));
    confidence.emplace_back(key, as_float(answer.find("confidence")));
    probabilities.emplace_back(key, probabilities_of(answer));
    answer_confidence.emplace_back(key, as_float(answer.find("answer_confidence")));
  };
  if (request.plan) {
    for (const PlannedField& field : request.plan->fields) {
      const json::Value* answer = answers_value.find(field.name);
      if (answer != nullptr && answer->is_object()) add(field.name, *answer, project(field, *answer));
    }
  } else {
    for (const json::Member& m : answers) {
      if (m.second.is_object()) add(m.first, m.second, m.second);
    }
  }
  if (!return_details) return dumps(json::Value::object(std::move(values)), /*ensure_ascii=*/false);
  const json::Value* usage = response.find("usage");
  const json::Value* routing = response.find("routing");
  return dumps(json::Value::object({{"values", json::Value::object(std::move(values))},
                                    {"confidence", json::Value::object(std::move(confidence))},
                                    {"probabilities", json::Value::object(std::move(probabilities))},
                                    {"answers", answers_value},
                                    {"usage", usage != nullptr ? *usage : json::Value()},
                                    {"routing", routing != nullptr ? *routing : json::Value()},
                                    {"answer_confidence", json::Value::object(std::move(answer_confidence))}}),
               /*ensure_ascii=*/false);
}

}  // namespace

Result<std::string> decide(const json::Value& state, const json::Value& schema, const json::Value& questions,
                           bool return_details, const json::Value& min_confidence, const PredictFn& predict) {
  if (schema.is_null() == questions.is_null()) return invalid_request("pass exactly one of schema= or questions=");
  LAYA_ASSIGN_OR_RETURN(std::optional<MinConfidence> gate, check_min_confidence(min_confidence));
  LAYA_ASSIGN_OR_RETURN(Request request, request_of(schema, questions));
  LAYA_ASSIGN_OR_RETURN(std::string response, predict(state, request.questions));
  return decision_json(response, request, gate, return_details);
}

Result<std::string> decide_batch(const json::Value& states, const json::Value& schema, const json::Value& questions,
                                 bool return_details, const json::Value& min_confidence,
                                 const PredictBatchFn& predict_batch) {
  if (schema.is_null() == questions.is_null()) return invalid_request("pass exactly one of schema= or questions=");
  if (!states.is_array()) {
    return invalid_request(std::string("states must be a sequence of states, not ") + python_type_name(states));
  }
  LAYA_ASSIGN_OR_RETURN(std::optional<MinConfidence> gate, check_min_confidence(min_confidence));
  LAYA_ASSIGN_OR_RETURN(Request request, request_of(schema, questions));
  LAYA_ASSIGN_OR_RETURN(std::vector<std::string> responses, predict_batch(states.items(), request.questions));
  if (responses.size() != states.items().size()) {
    return internal_error("decide_batch: " + std::to_string(responses.size()) + " responses for " +
                          std::to_string(states.items().size()) + " states");
  }
  std::string out = "[";
  for (size_t i = 0; i < responses.size(); ++i) {
    LAYA_ASSIGN_OR_RETURN(std::string result, decision_json(responses[i], request, gate, return_details));
    out += (i ? ", " : "") + result;
  }
  return out + "]";
}

}  // namespace laya::decide
