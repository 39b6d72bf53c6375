// predict_tournament (upstream shortlist.py, laya-spec-current §8). Like predict_shortlist it reads
// the raw request: definitions that are not choice dicts are left for the predict calls to judge.
#include "decide/tournament.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "decide/pyjson.h"
#include "decide/pyrepr.h"

namespace laya::decide {
namespace {

// A choice question's progress: its original criteria, and the labels still in the running.
struct Contest {
  std::string qid;
  const json::Value* question;
  const json::Value* criteria;  // a dict or a list
  std::vector<json::Value> labels;
  size_t n = 0;
  int rounds = 0;
};

// group_size as an int >= 2 (not a bool); an int too large for int64 holds every label in one group.
Result<size_t> checked_group_size(const json::Value& group_size) {
  if (group_size.is_number() && group_size.is_integer() && group_size.number_text()[0] != '-') {
    const std::optional<int64_t> n = group_size.as_int64();
    if (!n) return static_cast<size_t>(std::numeric_limits<int64_t>::max());
    if (*n >= 2) return static_cast<size_t>(*n);
  }
  return invalid_request("group_size must be an integer of at least 2, got " + python_repr(group_size));
}

bool is_choice(const json::Value& question) {
  const json::Value* type = question.is_object() ? question.find("type") : nullptr;
  return type != nullptr && type->is_string() && type->as_string() == "choice";
}

// A list label must be hashable to go into Python's set.
Result<std::vector<json::Value>> criteria_labels(const json::Value& criteria) {
  std::vector<json::Value> labels;
  if (criteria.is_object()) {
    for (const json::Member* m : dict_members(criteria)) labels.push_back(json::Value::string(m->first));
    return labels;
  }
  for (const json::Value& label : criteria.items()) {
    if (label.is_array() || label.is_object()) {
      return invalid_request(std::string("unhashable type: '") + python_type_name(label) + "'");
    }
    for (const json::Value& earlier : labels) {
      if (python_key_equal(earlier, label)) {
        return invalid_request("choice criteria label " + python_repr(label) + " is duplicated");
      }
    }
    labels.push_back(label);
  }
  return labels;
}

Result<Contest> contest_of(const std::string& qid, const json::Value& question) {
  const json::Value* criteria = question.find("criteria");
  if (criteria == nullptr) return invalid_request("question " + python_str_repr(qid) + " is a choice but has no criteria");
  if (!criteria->is_object() && !criteria->is_array()) {
    return invalid_request(std::string("choice criteria must be a dict or list, got ") + python_type_name(*criteria));
  }
  LAYA_ASSIGN_OR_RETURN(std::vector<json::Value> labels, criteria_labels(*criteria));
  if (labels.empty()) return invalid_request("choice criteria must contain at least one option");
  Contest contest{qid, &question, criteria, std::move(labels)};
  contest.n = contest.labels.size();
  return contest;
}

// The criteria cut to `labels`, in their order: a dict keeps each label's description.
Result<json::Value> cut_criteria(const Contest& contest, const std::vector<json::Value>& labels) {
  if (contest.criteria->is_array()) return json::Value::array(labels);
  std::vector<json::Member> kept;
  for (const json::Value& label : labels) {
    const json::Value* description = label.is_string() ? contest.criteria->find(label.as_string()) : nullptr;
    if (description == nullptr) {
      return internal_error("predictTournament: the winner " + python_repr(label) + " of question " +
                            python_str_repr(contest.qid) + " is not one of its labels");
    }
    kept.emplace_back(label.as_string(), *description);
  }
  return json::Value::object(std::move(kept));
}

// A copy of the question, key order kept, with its criteria replaced in place.
json::Value with_criteria(const json::Value& question, json::Value criteria) {
  std::vector<json::Member> members;
  for (const json::Member* m : dict_members(question)) {
    members.emplace_back(m->first, m->first == "criteria" ? criteria : m->second);
  }
  return json::Value::object(std::move(members));
}

// Group i of `labels` split into `parts`: labels[⌊i·len/parts⌋ : ⌊(i+1)·len/parts⌋].
std::vector<json::Value> group(const std::vector<json::Value>& labels, size_t i, size_t parts) {
  const size_t begin = i * labels.size() / parts;
  const size_t end = (i + 1) * labels.size() / parts;
  return {labels.begin() + static_cast<std::ptrdiff_t>(begin), labels.begin() + static_cast<std::ptrdiff_t>(end)};
}

// One round over every contest with more than group_size labels. False when there was none.
Result<bool> play_round(const json::Value& state, std::vector<Contest>& contests, size_t group_size,
                        const PredictFn& predict) {
  std::vector<json::Member> round_questions;
  std::vector<size_t> owner;  // round question index -> contest index
  for (size_t c = 0; c < contests.size(); ++c) {
    const size_t count = contests[c].labels.size();
    const size_t parts = count / group_size + (count % group_size != 0);
    if (parts <= 1) continue;
    for (size_t i = 0; i < parts; ++i) {
      LAYA_ASSIGN_OR_RETURN(json::Value criteria, cut_criteria(contests[c], group(contests[c].labels, i, parts)));
      round_questions.emplace_back(std::to_string(round_questions.size()),
                                   with_criteria(*contests[c].question, std::move(criteria)));
      owner.push_back(c);
    }
  }
  if (round_questions.empty()) return false;
  LAYA_ASSIGN_OR_RETURN(std::string text, predict(state, json::Value::object(std::move(round_questions))));
  LAYA_ASSIGN_OR_RETURN(json::Value response, json::parse(text, "predictTournament round response",
                                                          {.allow_nonfinite = true}));
  const json::Value* answers = response.is_object() ? response.find("answers") : nullptr;
  std::vector<std::vector<json::Value>> winners(contests.size());
  for (size_t i = 0; i < owner.size(); ++i) {
    const json::Value* answer = answers != nullptr && answers->is_object() ? answers->find(std::to_string(i)) : nullptr;
    const json::Value* choice = answer != nullptr && answer->is_object() ? answer->find("choice") : nullptr;
    if (choice == nullptr) {
      return internal_error("predictTournament: the round response has no choice for question '" + std::to_string(i) + "'");
    }
    winners[owner[i]].push_back(*choice);
  }
  for (size_t c = 0; c < contests.size(); ++c) {
    if (winners[c].empty()) continue;
    contests[c].labels = std::move(winners[c]);
    ++contests[c].rounds;
  }
  return true;
}

std::string tournament_json(const std::vector<Contest>& contests) {
  std::string out = "{";
  for (size_t c = 0; c < contests.size(); ++c) {
    if (c) out += ", ";
    json::append_quoted(out, contests[c].qid, /*ensure_ascii=*/false);
    out += ": {\"labels\": " + dumps(json::Value::array(contests[c].labels), /*ensure_ascii=*/false) +
           ", \"n\": " + std::to_string(contests[c].n) + ", \"rounds\": " + std::to_string(contests[c].rounds) + "}";
  }
  return out + "}";
}

}  // namespace

Result<std::string> predict_tournament(const json::Value& state, const json::Value& questions,
                                       const json::Value& group_size, const PredictFn& predict) {
  if (!questions.is_object()) return invalid_request("questions must be a dict of question id -> definition");
  LAYA_ASSIGN_OR_RETURN(size_t size, checked_group_size(group_size));
  std::vector<Contest> contests;
  for (const json::Member* m : dict_members(questions)) {
    if (!is_choice(m->second)) continue;
    LAYA_ASSIGN_OR_RETURN(Contest contest, contest_of(m->first, m->second));
    contests.push_back(std::move(contest));
  }
  while (true) {
    LAYA_ASSIGN_OR_RETURN(bool played, play_round(state, contests, size, predict));
    if (!played) break;
  }
  std::vector<json::Member> final_questions;
  size_t c = 0;
  for (const json::Member* m : dict_members(questions)) {
    final_questions.push_back(*m);
    if (c == contests.size() || contests[c].qid != m->first) continue;
    const Contest& contest = contests[c++];
    if (contest.rounds == 0) continue;
    LAYA_ASSIGN_OR_RETURN(json::Value criteria, cut_criteria(contest, contest.labels));
    final_questions.back().second = with_criteria(*contest.question, std::move(criteria));
  }
  LAYA_ASSIGN_OR_RETURN(std::string response, predict(state, json::Value::object(std::move(final_questions))));
  const size_t close = response.find_last_of('}');
  if (close == std::string::npos || close == 0) {
    return internal_error("predictTournament: the final response is not a JSON object");
  }
  // An empty object gets no separator.
  const size_t last = response.find_last_not_of(" \t\r\n", close - 1);
  const std::string separator = response[last] == '{' ? "" : ", ";
  return response.substr(0, close) + separator + "\"tournament\": " + tournament_json(contests) + response.substr(close);
}

}  // namespace laya::decide
