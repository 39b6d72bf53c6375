// Upstream's typed decisions (structured.py, laya-spec-current §10): a JSON schema of flat
// properties is planned into one question per property (enum -> choice or noul, boolean -> noul,
// bounded integer -> score), the answers are projected back onto typed values, and
// return_details adds upstream's DecisionResult fields. The predictors are callbacks so planning
// and projection can be tested without a model.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "decide/question.h"
#include "decide/tournament.h"
#include "util/json.h"
#include "util/status.h"

namespace laya::decide {

inline constexpr size_t kMaxProperties = 32;  // MAX_PROPERTIES
inline constexpr size_t kMaxOptions = 32;     // MAX_OPTIONS
inline constexpr int64_t kMaxScoreLevels = 10;  // MAX_SCORE_LEVELS

// One schema property and how its answer becomes a value.
struct PlannedField {
  std::string name;
  QType type = QType::kNoul;
  json::Value question;                 // {"type", "instructions"[, "criteria"]}
  std::vector<json::Value> enum_values;  // choice: the enum values, in order
  std::vector<std::string> labels;       // choice: str() of each enum value ("null" for null)
  int64_t minimum = 0;                   // score: the value of the first level
};

struct DecisionPlan {
  std::vector<PlannedField> fields;  // in property order
  json::Value questions;             // {name: question, ...}
};

// Plans every property of `schema` or fails with upstream's SchemaError message (invalid_request).
Result<DecisionPlan> plan_schema(const json::Value& schema);

// Predicts many states with the same questions: one response text per state, in order.
using PredictBatchFn =
    std::function<Result<std::vector<std::string>>(const std::vector<json::Value>& states, const json::Value& questions)>;

// decide: exactly one of `schema` and `questions` is given (null means not given). `min_confidence`
// is validated here and applied again to the response; the caller binds the same value into
// `predict`. Returns the values object (schema mode: typed values by property; questions mode: the
// answers as they are), or with `return_details` the DecisionResult object
// {"values", "confidence", "probabilities", "answers", "usage", "routing", "answer_confidence"}.
Result<std::string> decide(const json::Value& state, const json::Value& schema, const json::Value& questions,
                           bool return_details, const json::Value& min_confidence, const PredictFn& predict);

// decide_batch: `states` must be a list. `predict_batch` is called once, without min_confidence;
// the gate is applied afterwards. Returns a JSON list of what decide returns, one per state.
Result<std::string> decide_batch(const json::Value& states, const json::Value& schema, const json::Value& questions,
                                 bool return_details, const json::Value& min_confidence,
                                 const PredictBatchFn& predict_batch);

}  // namespace laya::decide
