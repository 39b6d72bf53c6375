// _decode_answers in the float types numpy uses under NEP 50 (numpy 2): the logits divided by the
// temperature cast to f32, exp/sum/divide in f32, the entropy in f32 including the final
// `1 - ent / log(k)` (numpy 1.x did that last step in f64; the recorded fixtures do not tell them
// apart), the expected score in f64. The act probability is torch's CPU softmax over the act
// logits: exp(x - max) (libm expf here, Sleef there) times 1/sum; the act logits are in the
// thousands, so it is exactly 1.0 or 0.0 in practice.
#include "decide/answer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "decide/numpy_math.h"
#include "decide/pyfloat.h"
#include "decide/pyjson.h"
#include "decide/pyrepr.h"

namespace laya::decide {
namespace {

// float(t) as Python evaluates it on a json.loads value; false where Python raises.
bool python_float(const json::Value& v, double& out) {
  if (v.is_number()) {
    out = v.as_double();
    return true;
  }
  if (v.is_bool()) {
    out = v.as_bool() ? 1.0 : 0.0;
    return true;
  }
  if (v.is_string()) return python_parse_float(v.as_string(), out);
  return false;
}

std::string percent_g(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

void append_rounded(std::string& out, double x) { out += float_json(python_round(x, 4)); }

void append_key(std::string& out, std::string_view key) {
  json::append_quoted(out, key, /*ensure_ascii=*/false);
  out += ": ";
}

// numpy: z = logits / T (T cast to f32), p = exp(z - max z), p = p / p.sum().
std::vector<float> calibrated_softmax(std::span<const float> logits, double temperature) {
  const float t = static_cast<float>(temperature);
  std::vector<float> z(logits.size());
  for (size_t i = 0; i < z.size(); ++i) z[i] = logits[i] / t;
  const float top = *std::max_element(z.begin(), z.end());
  std::vector<float> p(z.size());
  for (size_t i = 0; i < z.size(); ++i) p[i] = numpy_exp_f32(z[i] - top);
  const float sum = pairwise_sum(p);
  for (float& v : p) v = v / sum;
  return p;
}

// confidence_from_probs: 1 - H(p) / ln k in f32, clipped to [0, 1]; 1 for k < 2.
double entropy_confidence(const std::vector<float>& p) {
  const size_t k = p.size();
  if (k < 2) return 1.0;
  const float floor = static_cast<float>(1e-12);
  std::vector<float> terms(k);
  for (size_t i = 0; i < k; ++i) terms[i] = p[i] * numpy_log_f32(std::min(std::max(p[i], floor), 1.0f));
  const float entropy = -pairwise_sum(terms);
  const float c = 1.0f - entropy / static_cast<float>(std::log(static_cast<double>(k)));
  return std::min(std::max(c, 0.0f), 1.0f);
}

// torch.softmax(act, -1)[0] on CPU.
double act_softmax_first(std::span<const float> act) {
  const float top = *std::max_element(act.begin(), act.end());
  std::vector<float> e(act.size());
  float sum = 0.0f;
  for (size_t i = 0; i < act.size(); ++i) {
    e[i] = std::exp(act[i] - top);
    sum += e[i];
  }
  return e[0] * (1.0f / sum);
}

// Valid token ids through a correct engine give finite outputs unless the weights hold NaN or Inf
// (or values that overflow f32), so this is the checkpoint's fault: the user's remedy is another
// checkpoint, not another request.
Status check_finite(const Question& q, std::span<const float> values, const char* what) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      return invalid_checkpoint("answer for question " + python_str_repr(q.id) + " failed: the model returned " +
                                float_repr(values[i]) + " as " + what + " " + std::to_string(i) +
                                "; the checkpoint's weights hold NaN or Inf, or values that overflow");
    }
  }
  return {};
}

}  // namespace

double clamp_temperature(const json::Value& raw) {
  double t;
  if (!python_float(raw, t) || !std::isfinite(t)) return 1.0;
  return std::min(kTemperatureMax, std::max(kTemperatureMin, t));
}

std::string temperature_bucket(QType type, size_t option_count) {
  const char* size = option_count <= 2 ? "2" : option_count <= 5 ? "3-5" : option_count <= 10 ? "6-10" : "11+";
  return std::string(qtype_name(type)) + ":" + size;
}

double Calibration::temperature(QType type, size_t option_count) const {
  const std::string bucket = temperature_bucket(type, option_count);
  for (const auto& [name, t] : by_options) {
    if (name == bucket) return t;
  }
  return by_type[static_cast<size_t>(type)];
}

Result<LoadedCalibration> load_calibration(const json::Value& rl_agent_config) {
  LoadedCalibration out;
  std::vector<std::string> rejected;
  const auto note = [&](const std::string& name, const json::Value& raw, double applied) {
    double value;
    if (python_float(raw, value) && value == applied) return;
    rejected.push_back(name + "=" + python_repr(raw) + " -> " + percent_g(applied));
  };
  std::vector<std::pair<std::string, json::Value>> by_type_raw;
  if (const json::Value* list = rl_agent_config.find("temperature")) {
    if (!list->is_array() || list->items().size() != 3) {
      return invalid_checkpoint(std::string("rl_agent_config.json: temperature must be a list of 3 numbers "
                                            "(choice, score, noul), got ") +
                                python_repr(*list));
    }
    for (size_t i = 0; i < 3; ++i) {
      out.calibration.by_type[i] = clamp_temperature(list->items()[i]);
      by_type_raw.emplace_back("temperature[" + std::to_string(i) + "]", list->items()[i]);
    }
  }
  if (const json::Value* table = rl_agent_config.find("temperature_by_options")) {
    if (!table->is_object()) {
      return invalid_checkpoint(std::string("rl_agent_config.json: temperature_by_options must be an object, got ") +
                                python_repr(*table));
    }
    for (const json::Member* m : dict_members(*table)) {
      const double applied = clamp_temperature(m->second);
      out.calibration.by_options.emplace_back(m->first, applied);
      note(m->first, m->second, applied);
    }
  }
  for (size_t i = 0; i < by_type_raw.size(); ++i) {
    note(by_type_raw[i].first, by_type_raw[i].second, out.calibration.by_type[i]);
  }
  if (!rejected.empty()) {
    std::string entries;
    for (size_t i = 0; i < rejected.size(); ++i) entries += (i ? ", " : "") + rejected[i];
    out.warning = "laya: this checkpoint ships invalid temperatures or values outside [" +
                  percent_g(kTemperatureMin) + ", " + percent_g(kTemperatureMax) + "]; using " + entries +
                  ". Treat confidence from the affected entries as uncalibrated.";
  }
  return out;
}

Result<Answer> compute_answer(const Question& q, std::span<const float> logits, std::span<const float> act_logits,
                              double temperature) {
  if (logits.size() != q.option_count() || act_logits.empty()) {
    return internal_error("answer for question " + python_str_repr(q.id) + " failed: expected " +
                          std::to_string(q.option_count()) + " logits and at least 1 act logit, got " +
                          std::to_string(logits.size()) + " and " + std::to_string(act_logits.size()));
  }
  LAYA_RETURN_IF_ERROR(check_finite(q, logits, "logit"));
  LAYA_RETURN_IF_ERROR(check_finite(q, act_logits, "act logit"));
  Answer a;
  a.probabilities = calibrated_softmax(logits, temperature);
  if (q.option_order.size() == a.probabilities.size()) {
    std::vector<float> caller_order(a.probabilities.size());
    for (size_t s = 0; s < q.option_order.size(); ++s) caller_order[q.option_order[s]] = a.probabilities[s];
    a.probabilities = std::move(caller_order);
  }
  const std::vector<float>& p = a.probabilities;
  a.choice = static_cast<size_t>(std::max_element(p.begin(), p.end()) - p.begin());
  a.answer_confidence = std::min(std::max(p[a.choice], 0.0f), 1.0f);
  a.act_probability = act_softmax_first(act_logits);
  if (q.type == QType::kNoul) {
    const double p1 = p[1];
    a.confidence = std::max(p1, 1.0 - p1);
  } else {
    a.confidence = entropy_confidence(p);
  }
  if (q.type == QType::kScore) {
    std::vector<double> weighted(p.size());
    for (size_t i = 0; i < p.size(); ++i) weighted[i] = static_cast<double>(i) * static_cast<double>(p[i]);
    a.score = pairwise_sum(weighted);
  }
  return a;
}

double gated_value(const Answer& a, const AnswerFields& fields) {
  return python_round(fields.answer_confidence ? a.answer_confidence : a.confidence, 4);
}

void append_answer_json(std::string& out, const Question& q, const Answer& a, const AnswerFields& fields,
                        const GateVerdict* gate) {
  const std::vector<float>& p = a.probabilities;
  out += "{\"type\": ";
  json::append_quoted(out, qtype_name(q.type), false);
  switch (q.type) {
    case QType::kChoice:
      out += ", \"choice\": ";
      append_dumps(out, q.labels[a.choice], /*ensure_ascii=*/false);
      out += ", \"probabilities\": {";
      for (size_t i = 0; i < p.size(); ++i) {
        if (i) out += ", ";
        append_key(out, json_key(q.labels[i]));
        append_rounded(out, p[i]);
      }
      out += "}";
      break;
    case QType::kScore:
      out += ", \"score\": ";
      append_rounded(out, a.score);
      out += ", \"legend\": {";
      for (size_t i = 0; i < q.criteria.size(); ++i) {
        if (i) out += ", ";
        append_key(out, std::to_string(i));
        if (fields.rendered_legend) {
          json::append_quoted(out, render_criterion(q.criteria[i]), /*ensure_ascii=*/false);
        } else {
          append_dumps(out, q.criteria[i], /*ensure_ascii=*/false);
        }
      }
      out += "}, \"probabilities\": {";
      for (size_t i = 0; i < p.size(); ++i) {
        if (i) out += ", ";
        append_key(out, std::to_string(i));
        append_rounded(out, p[i]);
      }
      out += "}";
      break;
    case QType::kNoul:
      out += ", \"noul\": ";
      append_rounded(out, p[1]);
      break;
  }
  out += ", \"confidence\": ";
  append_rounded(out, a.confidence);
  if (fields.answer_confidence) {
    out += ", \"answer_confidence\": ";
    append_rounded(out, a.answer_confidence);
  }
  out += ", \"action\": {\"act_probability\": ";
  append_rounded(out, a.act_probability);
  out += "}";
  if (gate) append_gate_json(out, *gate);
  out += "}";
}

}  // namespace laya::decide
