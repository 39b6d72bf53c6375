// The tokenizer.json "post_processor" for a single sequence: the special ids it puts before and
// after the content (TemplateProcessing "single", BertProcessing, RobertaProcessing; ByteLevel
// only moves offsets; Sequence applies each in turn), plus Hugging Face truncation (laya-spec §3.10).
#pragma once

#include <cstdint>
#include <vector>

#include "tok/json_fields.h"
#include "util/json.h"
#include "util/status.h"

namespace laya::tok {

class PostProcessor {
 public:
  // `spec` is the "post_processor" value (null: no special tokens).
  static Result<PostProcessor> parse(const json::Value& spec, const FieldPath& at);

  // `content` cut to max_length minus the special tokens (from the end), then wrapped in them.
  std::vector<int32_t> apply(std::vector<int32_t> content, size_t max_length) const;
  size_t added_count() const { return prefix_.size() + suffix_.size(); }
  // The largest id it adds (-1 when it adds none): Hugging Face emits these ids as written, so the
  // tokenizer checks them against its vocabulary at load.
  int32_t max_added_id() const;

 private:
  static Status parse_into(const json::Value& spec, const FieldPath& at, int depth, PostProcessor& p);
  static Status parse_template(const json::Value& spec, const FieldPath& at, PostProcessor& p);

  std::vector<int32_t> prefix_, suffix_;
};

}  // namespace laya::tok
