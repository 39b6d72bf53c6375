// confidence.py's check_min_confidence and apply_min_confidence, message for message. The number
// compared is the rounded value the answer shows, so 0.5 passes a 0.5 threshold.
#include "decide/confidence.h"

#include <cmath>

#include "decide/answer.h"
#include "decide/pyfloat.h"
#include "decide/pyjson.h"
#include "decide/pyrepr.h"

namespace laya::decide {
namespace {

bool known_bucket(const std::string& key) {
  if (key == "default") return true;
  for (QType type : {QType::kChoice, QType::kScore, QType::kNoul}) {
    for (size_t k : {2, 3, 6, 11}) {
      if (key == temperature_bucket(type, k)) return true;
    }
  }
  return false;
}

// A threshold: an int or float (never a bool), finite, in [0, 1].
Result<double> threshold_value(const json::Value& v) {
  if (v.is_number()) {
    const double x = v.as_double();
    if (std::isfinite(x) && x >= 0.0 && x <= 1.0) return x;
  }
  return invalid_request("min_confidence must be a float in [0.0, 1.0], got " + python_repr(v));
}

}  // namespace

double MinConfidence::threshold(QType type, size_t option_count) const {
  if (single) return *single;
  const std::string bucket = temperature_bucket(type, option_count);
  const double* fallback = nullptr;
  for (const auto& [key, value] : by_bucket) {
    if (key == bucket) return value;
    if (key == "default") fallback = &value;
  }
  return fallback ? *fallback : 0.0;
}

Result<std::optional<MinConfidence>> check_min_confidence(const json::Value& value, MinConfidenceKeys keys) {
  if (value.is_null()) return std::optional<MinConfidence>();
  MinConfidence out;
  if (!value.is_object()) {
    LAYA_ASSIGN_OR_RETURN(double single, threshold_value(value));
    out.single = single;
    return std::optional<MinConfidence>(out);
  }
  const std::vector<const json::Member*> members = dict_members(value);
  if (members.empty()) {
    return invalid_request("a min_confidence map must be a non-empty dict of bucket -> float, got " +
                           python_repr(value));
  }
  for (const json::Member* m : members) {
    if (keys == MinConfidenceKeys::kBuckets && !known_bucket(m->first)) {
      return invalid_request("min_confidence map keys must be a bucket like 'choice:3-5' or 'default', got " +
                             python_str_repr(m->first));
    }
    LAYA_ASSIGN_OR_RETURN(double threshold, threshold_value(m->second));
    out.by_bucket.emplace_back(m->first, threshold);
  }
  return std::optional<MinConfidence>(out);
}

GateVerdict gate_answer(const MinConfidence& gate, QType type, size_t option_count, std::optional<double> compared) {
  GateVerdict v;
  v.threshold = gate.threshold(type, option_count);
  // A single threshold of exactly 0 flags nothing; a map's 0 can flag nothing either.
  const bool skip = gate.single && *gate.single == 0.0;
  v.low_confidence = !skip && compared && *compared < v.threshold;
  v.abstention = v.low_confidence ? "abstained" : compared ? "passed" : "unevaluated";
  return v;
}

void append_gate_json(std::string& out, const GateVerdict& verdict) {
  if (verdict.low_confidence) out += ", \"low_confidence\": true";
  out += ", \"abstention\": \"";
  out += verdict.abstention;
  out += "\", \"abstention_threshold\": " + float_json(verdict.threshold);
}

}  // namespace laya::decide
