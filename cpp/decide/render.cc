// common.py's serialize_state, render_criterion / render_options and the text pieces of
// build_sequence. Labels go through str() as current upstream does ("True", "None", "1.5").
#include "decide/render.h"

#include "decide/pyjson.h"
#include "decide/pyrepr.h"

namespace laya::decide {
namespace {

// `v is None or v == ""` (choice) and `v not in (None, "")` (noul): no description given.
bool no_description(const json::Value& v) { return v.is_null() || (v.is_string() && v.as_string().empty()); }

}  // namespace

std::string serialize_state(const json::Value& state) {
  return state.is_string() ? state.as_string() : dumps(state, /*ensure_ascii=*/false);
}

std::string replace_mask(std::string_view text, std::string_view mask) {
  if (mask.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  for (size_t hit; (hit = text.find(mask, pos)) != std::string_view::npos; pos = hit + mask.size()) {
    out.append(text.substr(pos, hit - pos));
    out += ' ';
  }
  out.append(text.substr(pos));
  return out;
}

std::string state_text(const json::Value& state, std::string_view mask) {
  return replace_mask(serialize_state(state), mask);
}

std::string head_text(const Question& q, std::string_view mask) {
  return std::string(qtype_name(q.type)) + " question: " + replace_mask(q.instructions, mask);
}

std::vector<std::string> render_options(const Question& q) {
  std::vector<std::string> out;
  switch (q.type) {
    case QType::kChoice:
      for (size_t i = 0; i < q.labels.size(); ++i) {
        std::string label = python_str(q.labels[i]);
        out.push_back(no_description(q.criteria[i]) ? label : label + ": " + render_criterion(q.criteria[i]));
      }
      break;
    case QType::kScore:
      for (size_t i = 0; i < q.criteria.size(); ++i) {
        out.push_back("level " + std::to_string(i) + ": " + render_criterion(q.criteria[i]));
      }
      break;
    case QType::kNoul:
      out.push_back(q.false_label + ": " +
                    (no_description(q.criteria[0]) ? "no, the statement does not hold" : render_criterion(q.criteria[0])));
      out.push_back(q.true_label + ": " +
                    (no_description(q.criteria[1]) ? "yes, the statement holds" : render_criterion(q.criteria[1])));
      break;
  }
  return out;
}

std::string option_text(std::string_view option, std::string_view mask) {
  return " " + replace_mask(option, mask);
}

}  // namespace laya::decide
