// Pre-tokenizer steps with Hugging Face semantics. Metaspace: spaces become the replacement, which
// is prepended per prepend_scheme ("first": only to text at the very start of the input), and with
// split the text breaks before every replacement (MergedWithNext). WhitespaceSplit drops white space.
#include "tok/pre_tokenizer.h"

#include "tok/byte_level.h"
#include "tok/unicode_tables.h"
#include "tok/utf8.h"

namespace laya::tok {
namespace {

Result<MetaspaceStep> parse_metaspace(const json::Value& spec, const FieldPath& at) {
  MetaspaceStep m;
  LAYA_ASSIGN_OR_RETURN(m.replacement, read_string(spec, "replacement", at));
  size_t pos = 0;
  if (m.replacement.empty() || (decode_utf8(m.replacement, pos), pos != m.replacement.size())) {
    return at.invalid("replacement", "must be exactly one character");
  }
  LAYA_ASSIGN_OR_RETURN(m.split, read_bool(spec, "split", true, at));
  LAYA_ASSIGN_OR_RETURN(const std::optional<std::string> scheme, read_optional_string(spec, "prepend_scheme", at));
  // Files older than prepend_scheme say add_prefix_space (true: always, false: never).
  const json::Value* legacy = spec.find("add_prefix_space");
  if (scheme) {
    if (*scheme == "always") {
      m.prepend = MetaspaceStep::Prepend::kAlways;
    } else if (*scheme == "first") {
      m.prepend = MetaspaceStep::Prepend::kFirst;
    } else if (*scheme == "never") {
      m.prepend = MetaspaceStep::Prepend::kNever;
    } else {
      return at.invalid("prepend_scheme", "must be \"always\", \"first\" or \"never\", not \"" + *scheme + "\"");
    }
    if (legacy && legacy->is_bool() && !legacy->as_bool() && m.prepend != MetaspaceStep::Prepend::kNever) {
      return at.invalid("add_prefix_space", "is false but prepend_scheme is \"" + *scheme + "\"");
    }
  } else {
    LAYA_ASSIGN_OR_RETURN(const bool add_prefix_space, read_bool(spec, "add_prefix_space", true, at));
    m.prepend = add_prefix_space ? MetaspaceStep::Prepend::kAlways : MetaspaceStep::Prepend::kNever;
  }
  return m;
}

void apply_step(const ByteLevelStep& step, const Word& word, std::vector<Word>& out) {
  std::string text = word.text;
  if (step.add_prefix_space && (text.empty() || text.front() != ' ')) text.insert(0, " ");
  if (!step.use_regex) {
    out.push_back({byte_level_encode(text), word.at_start});
    return;
  }
  for (const auto& [begin, end] : gpt2_split(text)) {
    out.push_back({byte_level_encode(std::string_view(text).substr(begin, end - begin)),
                   word.at_start && begin == 0});
  }
}

void apply_step(const MetaspaceStep& step, const Word& word, std::vector<Word>& out) {
  std::string text;
  text.reserve(word.text.size() + step.replacement.size());
  for (char c : word.text) {
    if (c == ' ') {
      text += step.replacement;
    } else {
      text.push_back(c);
    }
  }
  const bool starts = text.compare(0, step.replacement.size(), step.replacement) == 0;
  if (!starts && (step.prepend == MetaspaceStep::Prepend::kAlways ||
                  (step.prepend == MetaspaceStep::Prepend::kFirst && word.at_start))) {
    text.insert(0, step.replacement);
  }
  if (!step.split) {
    out.push_back({std::move(text), word.at_start});
    return;
  }
  size_t begin = 0;
  for (size_t at = text.find(step.replacement, 1); at != std::string::npos;
       at = text.find(step.replacement, at + step.replacement.size())) {
    if (at > begin) out.push_back({text.substr(begin, at - begin), word.at_start && begin == 0});
    begin = at;
  }
  if (text.size() > begin) out.push_back({text.substr(begin), word.at_start && begin == 0});
}

void apply_step(const WhitespaceSplitStep&, const Word& word, std::vector<Word>& out) {
  const std::string& text = word.text;
  size_t begin = std::string::npos;
  for (size_t pos = 0; pos < text.size();) {
    const size_t start = pos;
    const bool space = is_white_space(decode_utf8(text, pos));
    if (space && begin != std::string::npos) {
      out.push_back({text.substr(begin, start - begin), word.at_start && begin == 0});
      begin = std::string::npos;
    } else if (!space && begin == std::string::npos) {
      begin = start;
    }
  }
  if (begin != std::string::npos) out.push_back({text.substr(begin), word.at_start && begin == 0});
}

}  // namespace

Result<PreTokenizer> PreTokenizer::parse(const json::Value& spec, const FieldPath& at) {
  PreTokenizer p;
  if (!spec.is_null()) LAYA_RETURN_IF_ERROR(parse_into(spec, at, 0, p.steps_));
  return p;
}

Status PreTokenizer::parse_into(const json::Value& spec, const FieldPath& at, int depth, std::vector<Step>& steps) {
  if (depth > 8) return at.unsupported("", "nests Sequence pre-tokenizers too deeply");
  LAYA_ASSIGN_OR_RETURN(const std::string type, read_type(spec, at));
  if (type == "ByteLevel") {
    ByteLevelStep b;
    LAYA_ASSIGN_OR_RETURN(b.add_prefix_space, read_bool(spec, "add_prefix_space", true, at));
    LAYA_ASSIGN_OR_RETURN(b.use_regex, read_bool(spec, "use_regex", true, at));
    steps.emplace_back(b);
  } else if (type == "Metaspace") {
    LAYA_ASSIGN_OR_RETURN(MetaspaceStep m, parse_metaspace(spec, at));
    steps.emplace_back(std::move(m));
  } else if (type == "WhitespaceSplit") {
    steps.emplace_back(WhitespaceSplitStep{});
  } else if (type == "Sequence") {
    const json::Value* list = spec.find("pretokenizers");
    if (!list || !list->is_array()) return at.invalid("pretokenizers", "must be an array");
    const FieldPath list_at = at.child("pretokenizers");
    for (size_t i = 0; i < list->items().size(); ++i) {
      LAYA_RETURN_IF_ERROR(parse_into(list->items()[i], list_at.index(i), depth + 1, steps));
    }
  } else {
    return at.unsupported("type", "'" + type +
                                      "' is not supported (supported: ByteLevel, Metaspace, WhitespaceSplit, Sequence)");
  }
  return {};
}

void PreTokenizer::apply(Word segment, std::vector<Word>& words) const {
  if (steps_.empty()) {
    words.push_back(std::move(segment));
    return;
  }
  std::vector<Word> current{std::move(segment)}, next;
  for (const Step& step : steps_) {
    next.clear();
    for (const Word& w : current) std::visit([&](const auto& s) { apply_step(s, w, next); }, step);
    current.swap(next);
  }
  for (Word& w : current) words.push_back(std::move(w));
}

}  // namespace laya::tok
