// Normalizer steps with Hugging Face semantics: Replace swaps every non-overlapping occurrence
// left to right; Prepend adds its prefix to any non-empty text; Sequence runs its steps in order.
#include "tok/normalizer.h"

#include "tok/nfc.h"

namespace laya::tok {

Result<Normalizer> Normalizer::parse(const json::Value& spec, const FieldPath& at) {
  Normalizer n;
  if (!spec.is_null()) LAYA_RETURN_IF_ERROR(parse_into(spec, at, 0, n.steps_));
  return n;
}

Status Normalizer::parse_into(const json::Value& spec, const FieldPath& at, int depth, std::vector<Step>& steps) {
  if (depth > 8) return at.unsupported("", "nests Sequence normalizers too deeply");
  LAYA_ASSIGN_OR_RETURN(const std::string type, read_type(spec, at));
  if (type == "NFC") {
    steps.push_back({Kind::kNfc, {}, {}});
  } else if (type == "Replace") {
    const json::Value* pattern = spec.find("pattern");
    const json::Value* literal = pattern && pattern->is_object() ? pattern->find("String") : nullptr;
    if (!literal) {
      return at.unsupported("pattern", "is not supported: only {\"String\": ...} patterns are (no regex)");
    }
    if (!literal->is_string() || literal->as_string().empty()) {
      return at.invalid("pattern.String", "must be a non-empty string");
    }
    LAYA_ASSIGN_OR_RETURN(std::string content, read_string(spec, "content", at));
    steps.push_back({Kind::kReplace, literal->as_string(), std::move(content)});
  } else if (type == "Prepend") {
    LAYA_ASSIGN_OR_RETURN(std::string prepend, read_string(spec, "prepend", at));
    steps.push_back({Kind::kPrepend, {}, std::move(prepend)});
  } else if (type == "Sequence") {
    const json::Value* list = spec.find("normalizers");
    if (!list || !list->is_array()) return at.invalid("normalizers", "must be an array");
    const FieldPath list_at = at.child("normalizers");
    for (size_t i = 0; i < list->items().size(); ++i) {
      LAYA_RETURN_IF_ERROR(parse_into(list->items()[i], list_at.index(i), depth + 1, steps));
    }
  } else {
    return at.unsupported("type", "'" + type + "' is not supported (supported: NFC, Replace, Prepend, Sequence)");
  }
  return {};
}

std::string Normalizer::apply(std::string_view text) const {
  std::string s(text);
  for (const Step& step : steps_) {
    switch (step.kind) {
      case Kind::kNfc:
        s = nfc(s);
        break;
      case Kind::kReplace: {
        std::string out;
        out.reserve(s.size());
        size_t from = 0;
        for (size_t at = s.find(step.pattern); at != std::string::npos; at = s.find(step.pattern, from)) {
          out.append(s, from, at - from);
          out += step.content;
          from = at + step.pattern.size();
        }
        out.append(s, from, std::string::npos);
        s = std::move(out);
        break;
      }
      case Kind::kPrepend:
        if (!s.empty()) s.insert(0, step.content);
        break;
    }
  }
  return s;
}

}  // namespace laya::tok
