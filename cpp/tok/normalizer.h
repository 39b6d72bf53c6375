// The tokenizer.json "normalizer": NFC, Replace (a literal pattern), Prepend, or a Sequence of them,
// applied to each stretch of text between non-normalized added tokens (laya-spec §4.3). Others are
// rejected at load with the type named.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tok/json_fields.h"
#include "util/json.h"
#include "util/status.h"

namespace laya::tok {

class Normalizer {
 public:
  // `spec` is the "normalizer" value (null: no normalization).
  static Result<Normalizer> parse(const json::Value& spec, const FieldPath& at);

  // The normalized form of valid UTF-8 `text`.
  std::string apply(std::string_view text) const;
  bool is_identity() const { return steps_.empty(); }

 private:
  enum class Kind { kNfc, kReplace, kPrepend };
  struct Step {
    Kind kind;
    std::string pattern;  // kReplace
    std::string content;  // kReplace: the replacement; kPrepend: the prefix
  };
  static Status parse_into(const json::Value& spec, const FieldPath& at, int depth, std::vector<Step>& steps);

  std::vector<Step> steps_;
};

}  // namespace laya::tok
