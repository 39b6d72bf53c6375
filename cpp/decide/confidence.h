// The min_confidence gate of upstream's confidence.py (laya-spec-current §4): a request option that
// is a single threshold or a per-bucket map, checked before anything else runs, then applied to
// every answer once the answers are built.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "decide/question.h"
#include "util/json.h"
#include "util/status.h"

namespace laya::decide {

struct MinConfidence {
  std::optional<double> single;                         // a number
  std::vector<std::pair<std::string, double>> by_bucket;  // a map, in insertion order

  // The threshold an answer of this type and option count is held to: the number, or
  // map[bucket], map["default"], 0.0 (a 1-option choice is bucket "choice:2").
  double threshold(QType type, size_t option_count) const;
};

// Which map keys check_min_confidence accepts. Upstream 0.3.29 names the twelve buckets and
// "default"; earlier upstream refused only non-string keys, so any JSON key passed.
enum class MinConfidenceKeys { kBuckets, kAnyString };

// check_min_confidence: null is no gate. A number (not a bool) must be finite and in [0, 1]; a map
// must be a non-empty object whose values follow the same rule. Errors are invalid_request with
// upstream's messages.
Result<std::optional<MinConfidence>> check_min_confidence(const json::Value& value,
                                                          MinConfidenceKeys keys = MinConfidenceKeys::kBuckets);

// What the gate writes on one answer: `low_confidence` when flagged, then `abstention` and
// `abstention_threshold`.
struct GateVerdict {
  bool low_confidence = false;
  const char* abstention = "passed";  // "abstained", "unevaluated" or "passed"
  double threshold = 0.0;
};

// `compared` is the answer's rounded answer_confidence (or, without one, its rounded confidence).
GateVerdict gate_answer(const MinConfidence& gate, QType type, size_t option_count, std::optional<double> compared);

// `, "low_confidence": true, "abstention": "...", "abstention_threshold": 0.5` (keys after "action").
void append_gate_json(std::string& out, const GateVerdict& verdict);

}  // namespace laya::decide
