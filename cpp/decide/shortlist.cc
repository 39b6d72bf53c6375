// predict_shortlist's reduction (upstream laya/shortlist.py, laya-spec §5.8). It reads the raw
// request, as upstream does before validation: questions that are not choices, or whose criteria
// are neither a dict nor a list, are left for the predict call to judge.
#include "decide/shortlist.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "decide/pyfloat.h"
#include "decide/pyjson.h"
#include "decide/pyrepr.h"
#include "decide/question.h"
#include "decide/render.h"

namespace laya::decide {
namespace {

const std::string kWhat = "predictShortlist: ";

// A choice question's labels and, per label, its description (null for a list of labels).
struct Choice {
  std::vector<std::string> labels;
  std::vector<json::Value> descriptions;
};

// str() of a list label; lists and dicts cannot be labels.
Result<std::string> label_text(const std::string& qid, const json::Value& item, size_t i) {
  if (item.is_array() || item.is_object()) {
    return invalid_request(kWhat + "question '" + qid + "': choice label " + std::to_string(i) + " is " +
                           (item.is_object() ? "an object" : "an array") + ", not a string");
  }
  return python_str(item);
}

// The labels of a choice question, or nothing for any other question.
Result<std::optional<Choice>> choice_of(const std::string& qid, const json::Value& question) {
  const json::Value* type = question.is_object() ? question.find("type") : nullptr;
  if (type == nullptr || !type->is_string() || type->as_string() != "choice") return std::optional<Choice>();
  const json::Value* criteria = question.find("criteria");
  const bool empty = criteria == nullptr || criteria->is_null() ||
                     (criteria->is_object() && criteria->members().empty()) ||
                     (criteria->is_array() && criteria->items().empty());
  if (empty) return invalid_request(kWhat + "question '" + qid + "' is a choice but has no criteria");
  Choice choice;
  if (criteria->is_object()) {
    for (const json::Member* m : dict_members(*criteria)) {
      choice.labels.push_back(m->first);
      choice.descriptions.push_back(m->second);
    }
    return std::optional<Choice>(std::move(choice));
  }
  if (!criteria->is_array()) return std::optional<Choice>();
  std::set<std::string> seen;
  for (size_t i = 0; i < criteria->items().size(); ++i) {
    LAYA_ASSIGN_OR_RETURN(std::string label, label_text(qid, criteria->items()[i], i));
    choice.labels.push_back(label);
    choice.descriptions.emplace_back();
  }
  for (const std::string& label : choice.labels) {
    if (!seen.insert(label).second) return invalid_request(kWhat + "choice criteria label '" + label + "' is duplicated");
  }
  return std::optional<Choice>(std::move(choice));
}

// `instructions + "\n"` when the instructions are truthy in Python; a non-string as json.dumps.
std::string query_prefix(const json::Value* instructions) {
  if (instructions == nullptr) return "";
  const json::Value& v = *instructions;
  bool truthy = false;
  switch (v.kind()) {
    case json::Kind::kNull: return "";
    case json::Kind::kBool: truthy = v.as_bool(); break;
    case json::Kind::kNumber: truthy = v.as_double() != 0; break;
    case json::Kind::kString: return v.as_string().empty() ? "" : v.as_string() + "\n";
    case json::Kind::kArray: truthy = !v.items().empty(); break;
    case json::Kind::kObject: truthy = !v.members().empty(); break;
  }
  return truthy ? dumps(v, /*ensure_ascii=*/false) + "\n" : "";
}

// The option texts as render_options writes them for a choice (no leading space, no mask scrub).
std::vector<std::string> option_texts(const Choice& choice) {
  Question q;
  q.type = QType::kChoice;
  for (const std::string& label : choice.labels) q.labels.push_back(json::Value::string(label));
  q.criteria = choice.descriptions;
  return render_options(q);
}

// Sums in order with no fused multiply-add, so the scores are the bits upstream's f64 arithmetic
// gives (GCC fuses only under -march with FMA, which the native build does not use).
#ifdef __clang__
#pragma clang fp contract(off)
#endif
double norm(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x * x;
  return std::sqrt(sum);
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

// The cosine of each option row with the query row (rows[0]): f64, NaN / ±inf read as 0, 0 when
// a norm is 0, clipped to [-1, 1].
Result<std::vector<double>> cosines(const std::vector<std::vector<float>>& rows, size_t expected) {
  const size_t dim = rows.empty() ? 0 : rows[0].size();
  const bool ragged = std::any_of(rows.begin(), rows.end(), [&](const auto& r) { return r.size() != dim; });
  if (rows.size() != expected || dim == 0 || ragged) {
    std::string sizes;
    for (size_t i = 0; i < rows.size(); ++i) sizes += (i ? ", " : "") + std::to_string(rows[i].size());
    return internal_error(kWhat + "embed must return an array of shape (" + std::to_string(expected) +
                          ", dim), got " + std::to_string(rows.size()) + " rows of [" + sizes + "]");
  }
  std::vector<std::vector<double>> clean;
  for (const auto& row : rows) {
    std::vector<double> r;
    for (float x : row) r.push_back(std::isfinite(x) ? static_cast<double>(x) : 0.0);
    clean.push_back(std::move(r));
  }
  const double query_norm = norm(clean[0]);
  std::vector<double> out;
  for (size_t i = 1; i < clean.size(); ++i) {
    const double denominator = query_norm * norm(clean[i]);
    out.push_back(denominator == 0 ? 0.0 : std::min(1.0, std::max(-1.0, dot(clean[i], clean[0]) / denominator)));
  }
  return out;
}

// The question with its criteria replaced by the kept labels in rank order.
json::Value reduced_question(const json::Value& question, const Choice& choice, const std::vector<size_t>& kept) {
  std::vector<json::Member> criteria;
  for (size_t i : kept) criteria.emplace_back(choice.labels[i], choice.descriptions[i]);
  std::vector<json::Member> members;
  for (const json::Member* m : dict_members(question)) {
    members.emplace_back(m->first, m->first == "criteria" ? json::Value::object(std::move(criteria)) : m->second);
  }
  return json::Value::object(std::move(members));
}

}  // namespace

Result<Shortlist> shortlist_questions(const json::Value& state, const json::Value& questions, int64_t k,
                                      const EmbedTexts& embed) {
  if (k < 1) return invalid_request(kWhat + "k must be a positive integer, got " + std::to_string(k));
  if (!questions.is_object()) return invalid_request(kWhat + "questions must be an object keyed by question id");
  Shortlist out;
  std::vector<json::Member> members;
  bool changed = false;
  for (const json::Member* m : dict_members(questions)) {
    const auto& [qid, question] = *m;
    members.push_back(*m);
    LAYA_ASSIGN_OR_RETURN(std::optional<Choice> choice, choice_of(qid, question));
    if (!choice) continue;
    const int64_t n = static_cast<int64_t>(choice->labels.size());
    if (n <= k) {
      out.entries.push_back({qid, choice->labels, std::nullopt, k, n});
      continue;
    }
    std::vector<std::string> texts{query_prefix(question.find("instructions")) + serialize_state(state)};
    for (std::string& text : option_texts(*choice)) texts.push_back(std::move(text));
    LAYA_ASSIGN_OR_RETURN(std::vector<std::vector<float>> rows, embed(texts));
    LAYA_ASSIGN_OR_RETURN(std::vector<double> scores, cosines(rows, texts.size()));
    std::vector<size_t> ranked(scores.size());
    std::iota(ranked.begin(), ranked.end(), size_t{0});
    // Stable: on a tie the earlier label wins.
    std::stable_sort(ranked.begin(), ranked.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
    ranked.resize(static_cast<size_t>(k));
    ShortlistEntry entry{qid, {}, std::vector<double>(), k, n};
    for (size_t i : ranked) {
      entry.labels.push_back(choice->labels[i]);
      entry.scores->push_back(scores[i]);
    }
    members.back().second = reduced_question(question, *choice, ranked);
    changed = true;
    out.entries.push_back(std::move(entry));
  }
  out.questions = changed ? json::Value::object(std::move(members)) : questions;
  return out;
}

std::string shortlist_json(const std::vector<ShortlistEntry>& entries) {
  std::string out = "{";
  for (size_t e = 0; e < entries.size(); ++e) {
    const ShortlistEntry& entry = entries[e];
    if (e) out += ", ";
    json::append_quoted(out, entry.qid, /*ensure_ascii=*/false);
    out += ": {\"labels\": [";
    for (size_t i = 0; i < entry.labels.size(); ++i) {
      if (i) out += ", ";
      json::append_quoted(out, entry.labels[i], /*ensure_ascii=*/false);
    }
    out += "], \"scores\": ";
    if (entry.scores) {
      out += '[';
      for (size_t i = 0; i < entry.scores->size(); ++i) out += (i ? ", " : "") + float_json((*entry.scores)[i]);
      out += ']';
    } else {
      out += "null";
    }
    out += ", \"k\": " + std::to_string(entry.k) + ", \"n\": " + std::to_string(entry.n) +
           ", \"passthrough\": " + (entry.passthrough() ? "true" : "false") + "}";
  }
  return out + "}";
}

}  // namespace laya::decide
