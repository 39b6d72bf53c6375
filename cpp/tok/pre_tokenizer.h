// The tokenizer.json "pre_tokenizer": ByteLevel (GPT-2 split + byte-to-unicode map), Metaspace,
// WhitespaceSplit, or a Sequence of them (laya-spec §4.3). Each step turns words into smaller words.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "tok/json_fields.h"
#include "util/json.h"
#include "util/status.h"

namespace laya::tok {

struct Word {
  std::string text;
  bool at_start = false;  // begins at offset 0 of the whole input (Metaspace prepend_scheme "first")
};

struct ByteLevelStep {
  bool add_prefix_space = false;
  bool use_regex = true;
};

struct MetaspaceStep {
  enum class Prepend { kAlways, kFirst, kNever };
  std::string replacement;  // one character, UTF-8
  Prepend prepend = Prepend::kAlways;
  bool split = true;
};

struct WhitespaceSplitStep {};

class PreTokenizer {
 public:
  // `spec` is the "pre_tokenizer" value (null: the whole segment is one word).
  static Result<PreTokenizer> parse(const json::Value& spec, const FieldPath& at);

  // Appends the words of one text segment.
  void apply(Word segment, std::vector<Word>& words) const;

 private:
  using Step = std::variant<ByteLevelStep, MetaspaceStep, WhitespaceSplitStep>;
  static Status parse_into(const json::Value& spec, const FieldPath& at, int depth, std::vector<Step>& steps);

  std::vector<Step> steps_;
};

}  // namespace laya::tok
