// A request's questions, validated and normalized as current upstream does (Agent._check_question
// then Agent._to_internal, laya-spec §4.1): same checks in the same order, same messages, Python dict
// semantics for duplicate keys, list labels merged as dict keys merge (1, 1.0 and true are one).
#pragma once

#include <string>
#include <vector>

#include "util/json.h"
#include "util/status.h"

namespace laya::decide {

enum class QType { kChoice = 0, kScore = 1, kNoul = 2 };  // the type embedding row (laya-spec §3.5)

const char* qtype_name(QType type);  // "choice", "score", "noul"

// The internal form `{t, ins, crit, labels}`.
struct Question {
  std::string id;
  QType type = QType::kChoice;
  std::string instructions;  // `ins`: the text, or json.dumps of a non-string value
  // choice: the labels in order (a str key of a criteria dict, or a scalar of a criteria list).
  std::vector<json::Value> labels;
  // choice: one description per label (null when none); score: the levels; noul: the false and
  // true descriptions in that order (null when absent).
  std::vector<json::Value> criteria;
  // noul: the words naming the two options (stripped `labels`, default "false" / "true").
  std::string false_label = "false";
  std::string true_label = "true";
  // option_order: slot s of the sequence carries option option_order[s]; empty when not given.
  std::vector<size_t> option_order;

  size_t option_count() const { return type == QType::kNoul ? 2 : criteria.size(); }
};

struct QuestionOptions {
  // json.dumps of non-string instructions escapes non-ASCII in 0.3.7 (and laya-mlx/JS), not in
  // current upstream.
  bool instructions_ensure_ascii = false;
  // Upstream 0.3.22 on (laya-spec-current §12, §2.1): blank question ids, null or empty
  // instructions and null or repeated list labels are refused, and `option_order` is read.
  bool newest_checks = false;
};

// Validates every question of the `questions` object (in order, stopping at the first problem)
// and returns them normalized. The error is invalid_request with upstream's message.
Result<std::vector<Question>> parse_questions(const json::Value& questions, const QuestionOptions& options);

}  // namespace laya::decide
