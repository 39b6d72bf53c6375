// Agent._check_question and Agent._to_internal of current upstream, check for check. Two places
// where upstream itself would crash rather than answer are given its closest message instead:
// an unhashable `type` (a list or object) raises TypeError upstream, here "unknown type".
#include "decide/question.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "decide/pyjson.h"
#include "decide/pyrepr.h"

namespace laya::decide {
namespace {

constexpr char kNoulLabelsMessage[] =
    "noul labels must map exactly 'false' and 'true' to distinct non-empty strings";

Error question_error(const std::string& id, const std::string& what) {
  return invalid_request("question " + python_str_repr(id) + ": " + what);
}

// Python's str.isspace for the characters str.strip() removes.
bool python_space(uint32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20) || cp == 0x85 || cp == 0xA0 ||
         cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 ||
         cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

// Decodes the UTF-8 character starting at s[i] (input is valid UTF-8) and returns its length.
size_t decode(const std::string& s, size_t i, uint32_t& cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = b(i);
  const size_t n = b0 < 0x80 ? 1 : (b0 >> 5) == 0x6 ? 2 : (b0 >> 4) == 0xE ? 3 : 4;
  cp = n == 1 ? b0 : n == 2 ? (b0 & 0x1F) : n == 3 ? (b0 & 0x0F) : (b0 & 0x07);
  for (size_t k = 1; k < n && i + k < s.size(); ++k) cp = (cp << 6) | (b(i + k) & 0x3F);
  return n;
}

std::string python_strip(const std::string& s) {
  size_t begin = 0, end = s.size();
  uint32_t cp;
  while (begin < end) {
    const size_t n = decode(s, begin, cp);
    if (!python_space(cp)) break;
    begin += n;
  }
  // Scan forward and remember where the last non-space character ends.
  size_t last = begin;
  for (size_t i = begin; i < end;) {
    const size_t n = decode(s, i, cp);
    i += n;
    if (!python_space(cp)) last = i;
  }
  return s.substr(begin, last - begin);
}

// ASCII-only lower(): a key that lowers to "true"/"false" is accepted exactly as upstream accepts
// it (no non-ASCII letter lowers to those); only the key list in a rejection differs for keys
// with non-ASCII capitals.
std::string ascii_lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

bool is_container(const json::Value& v) { return v.is_array() || v.is_object(); }

// _resolve_noul_labels: `labels` null means the default words.
Status resolve_noul_labels(const json::Value& labels, Question& q) {
  if (labels.is_null()) return {};
  if (!labels.is_object()) return question_error(q.id, kNoulLabelsMessage);
  const std::vector<const json::Member*> members = dict_members(labels);
  const bool exact_keys = members.size() == 2 &&
                          std::all_of(members.begin(), members.end(), [](const json::Member* m) {
                            return m->first == "false" || m->first == "true";
                          });
  if (!exact_keys) return question_error(q.id, kNoulLabelsMessage);
  const json::Value* false_word = labels.find("false");
  const json::Value* true_word = labels.find("true");
  if (!false_word->is_string() || !true_word->is_string()) return question_error(q.id, kNoulLabelsMessage);
  std::string f = python_strip(false_word->as_string()), t = python_strip(true_word->as_string());
  if (f.empty() || t.empty() || f == t) return question_error(q.id, kNoulLabelsMessage);
  q.false_label = std::move(f);
  q.true_label = std::move(t);
  return {};
}

Status parse_choice(const json::Value* crit, Question& q, const QuestionOptions& options) {
  if (crit == nullptr || !is_container(*crit)) {
    return question_error(q.id,
                          "a choice question takes 'criteria' as a dict of label -> description, or a list of labels");
  }
  if (crit->is_object()) {
    if (crit->members().empty()) return question_error(q.id, "a choice question needs at least one criterion");
    for (const json::Member* m : dict_members(*crit)) {
      q.labels.push_back(json::Value::string(m->first));
      q.criteria.push_back(m->second);
    }
    return {};
  }
  const std::vector<json::Value>& items = crit->items();
  if (items.empty()) return question_error(q.id, "a choice question needs at least one criterion");
  const std::string scalars = options.newest_checks ? "(a string, number or bool)" : "(a string, number or None)";
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string label = "choice label " + std::to_string(i);
    if (is_container(items[i])) {
      return question_error(q.id, label + " is a " + python_type_name(items[i]) +
                                      "; a label is rendered as option text and used as the answer key, so it "
                                      "must be a scalar " +
                                      scalars + ", got " + python_repr(items[i]));
    }
    if (options.newest_checks && items[i].is_null()) {
      return question_error(q.id, label +
                                      " is null; a label is rendered as option text and used as the answer key, so "
                                      "it must be a string, number or bool -- a null label renders as the text "
                                      "\"None\" while its answer key is \"null\"");
    }
  }
  if (options.newest_checks) {
    for (size_t i = 1; i < items.size(); ++i) {
      // Python's `==` between the labels: NaN equals nothing, not even itself.
      const auto is_nan = [](const json::Value& v) { return v.is_number() && std::isnan(v.as_double()); };
      if (is_nan(items[i])) continue;
      for (size_t j = 0; j < i; ++j) {
        if (!python_key_equal(items[j], items[i])) continue;
        return question_error(q.id, "choice label " + std::to_string(i) + " (" + python_repr(items[i]) +
                                        ") repeats label " + std::to_string(j) +
                                        "; the labels are the answer keys, so every option needs its own (1, 1.0 "
                                        "and True are one key)");
      }
    }
  }
  // {c: None for c in crit}: an equal label keeps the first spelling and position.
  for (const json::Value& label : items) {
    const bool seen = std::any_of(q.labels.begin(), q.labels.end(),
                                  [&](const json::Value& l) { return python_key_equal(l, label); });
    if (!seen) {
      q.labels.push_back(label);
      q.criteria.emplace_back();
    }
  }
  return {};
}

Status parse_score(const json::Value* crit, Question& q) {
  if (crit == nullptr || !crit->is_array()) {
    return question_error(q.id, "a score question takes 'criteria' as a list of level descriptions, index 0 first");
  }
  if (crit->items().empty()) return question_error(q.id, "a score question needs at least one level");
  for (size_t i = 0; i < crit->items().size(); ++i) {
    if (crit->items()[i].is_null()) {
      return question_error(q.id, "score level " + std::to_string(i) +
                                      " is null; give every level a description, index 0 first");
    }
  }
  q.criteria = crit->items();
  return {};
}

Status parse_noul(const json::Value* crit, Question& q) {
  q.criteria.assign(2, json::Value());
  if (crit == nullptr || crit->is_null()) return {};
  if (!crit->is_object()) {
    return question_error(q.id,
                          "a noul question takes 'criteria' as a dict with optional 'true'/'false' "
                          "descriptions, or omits it");
  }
  std::vector<std::string> keys;  // {str(k).lower() for k in crit}, sorted
  for (const json::Member& m : crit->members()) keys.push_back(ascii_lower(m.first));
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  if (std::any_of(keys.begin(), keys.end(), [](const std::string& k) { return k != "true" && k != "false"; })) {
    std::string listed = "[";
    for (size_t i = 0; i < keys.size(); ++i) listed += (i ? ", " : "") + python_str_repr(keys[i]);
    listed += "]";
    return question_error(
        q.id, "a noul question takes 'criteria' keyed only 'true'/'false' (either or both, and omitted is "
              "fine), got " +
                  listed +
                  ". Those keys are the option texts the model reads; any other key was silently dropped "
                  "and replaced with the defaults. If you want the answer worded differently, keep "
                  "'criteria' keyed 'true'/'false' and set 'labels' instead.");
  }
  // {str(k).lower(): v for k, v in crit.items()} over the dict json.loads built: among keys that
  // lower alike, the one first seen last wins.
  for (const json::Member* m : dict_members(*crit)) {
    q.criteria[ascii_lower(m->first) == "true" ? 1 : 0] = m->second;
  }
  return {};
}

// `[i for i in v if isinstance(i, int) and not isinstance(i, bool)]`, sorted, is range(n), with
// len(v) == n: a float such as 1.0 is dropped, so the check fails.
std::optional<std::vector<size_t>> permutation(const json::Value& v, size_t n) {
  if (!v.is_array() || v.items().size() != n) return std::nullopt;
  std::vector<size_t> order;
  std::vector<bool> seen(n, false);
  for (const json::Value& item : v.items()) {
    const std::optional<int64_t> slot = item.is_integer() ? item.as_int64() : std::nullopt;
    if (!slot || *slot < 0 || static_cast<uint64_t>(*slot) >= n || seen[static_cast<size_t>(*slot)]) {
      return std::nullopt;
    }
    seen[static_cast<size_t>(*slot)] = true;
    order.push_back(static_cast<size_t>(*slot));
  }
  return order;
}

// Steps 5 to 8 of laya-spec-current §12 (numbers and booleans pass: they become json.dumps text).
Status check_instructions(const json::Value& instructions, const std::string& id, const QuestionOptions& options) {
  if (!options.newest_checks) return {};
  if (instructions.is_null()) {
    return question_error(id, "'instructions' must not be None; add the text the model should answer");
  }
  const bool empty = (instructions.is_string() && python_strip(instructions.as_string()).empty()) ||
                     (instructions.is_array() && instructions.items().empty()) ||
                     (instructions.is_object() && instructions.members().empty());
  if (empty) return question_error(id, "'instructions' must not be empty; add the text the model should answer");
  return {};
}

Result<Question> parse_question(const std::string& id, const json::Value& def, const QuestionOptions& options) {
  Question q;
  q.id = id;
  if (options.newest_checks && python_strip(id).empty()) {
    return invalid_request("question id must be a non-empty string, got " + python_str_repr(id));
  }
  if (!def.is_object()) {
    return question_error(id, std::string("definition must be a dict, got ") + python_type_name(def));
  }
  const json::Value* type = def.find("type");
  const std::string type_text = type != nullptr && type->is_string() ? type->as_string() : "";
  if (type_text == "choice") q.type = QType::kChoice;
  else if (type_text == "score") q.type = QType::kScore;
  else if (type_text == "noul") q.type = QType::kNoul;
  else {
    return question_error(id, "unknown type " + (type ? python_repr(*type) : std::string("None")) +
                                  "; use one of ['choice', 'noul', 'score']");
  }
  const json::Value* instructions = def.find("instructions");
  if (instructions == nullptr) {
    return question_error(id, "no 'instructions'; add the text the model should answer");
  }
  LAYA_RETURN_IF_ERROR(check_instructions(*instructions, id, options));
  const json::Value* crit = def.find("criteria");
  switch (q.type) {
    case QType::kChoice: LAYA_RETURN_IF_ERROR(parse_choice(crit, q, options)); break;
    case QType::kScore: LAYA_RETURN_IF_ERROR(parse_score(crit, q)); break;
    case QType::kNoul: LAYA_RETURN_IF_ERROR(parse_noul(crit, q)); break;
  }
  if (const json::Value* order = options.newest_checks ? def.find("option_order") : nullptr) {
    std::optional<std::vector<size_t>> slots = permutation(*order, q.option_count());
    if (!slots) {
      return question_error(id, "'option_order' must be a permutation of range(" + std::to_string(q.option_count()) +
                                    ") -- one slot per option, each option once -- got " + python_repr(*order));
    }
    q.option_order = std::move(*slots);
  }
  if (const json::Value* labels = def.find("labels")) {
    if (q.type != QType::kNoul) return question_error(id, "'labels' is only supported for noul questions");
    LAYA_RETURN_IF_ERROR(resolve_noul_labels(*labels, q));
  }
  q.instructions = instructions->is_string() ? instructions->as_string()
                                             : dumps(*instructions, options.instructions_ensure_ascii);
  return q;
}

}  // namespace

const char* qtype_name(QType type) {
  switch (type) {
    case QType::kChoice: return "choice";
    case QType::kScore: return "score";
    case QType::kNoul: return "noul";
  }
  return "?";
}

Result<std::vector<Question>> parse_questions(const json::Value& questions, const QuestionOptions& options) {
  if (!questions.is_object()) {
    return invalid_request(std::string("questions must be a dict keyed by question id, got ") +
                           python_type_name(questions));
  }
  std::vector<Question> out;
  for (const json::Member* m : dict_members(questions)) {
    LAYA_ASSIGN_OR_RETURN(Question q, parse_question(m->first, m->second, options));
    out.push_back(std::move(q));
  }
  return out;
}

}  // namespace laya::decide
