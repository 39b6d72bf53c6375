// Post-processors for one sequence and the truncation that keeps the special tokens.
#include "tok/post_processor.h"

#include <doctest/doctest.h>

using laya::tok::PostProcessor;
using Ids = std::vector<int32_t>;

namespace {

laya::Result<PostProcessor> parse(const char* json) {
  auto v = laya::json::parse(json, "test");
  REQUIRE(v.ok());
  return PostProcessor::parse(v.value(), {"tokenizer.json", "post_processor"});
}

}  // namespace

TEST_CASE("a template puts its special ids around the content and truncates the content") {
  auto p = parse(R"({"type": "TemplateProcessing",
      "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                 {"SpecialToken": {"id": "</s>", "type_id": 0}}],
      "special_tokens": {"<s>": {"id": "<s>", "ids": [7], "tokens": ["<s>"]},
                         "</s>": {"id": "</s>", "ids": [8, 9], "tokens": ["</s>", "x"]}}})");
  REQUIRE(p.ok());
  CHECK(p.value().added_count() == 3);
  CHECK(p.value().apply({1, 2, 3}, 100) == Ids{7, 1, 2, 3, 8, 9});
  CHECK(p.value().apply({1, 2, 3}, 5) == Ids{7, 1, 2, 8, 9});
  CHECK(p.value().apply({1, 2, 3}, 1) == Ids{7, 8, 9});
}

TEST_CASE("Bert and Roberta processing wrap in cls and sep; ByteLevel adds nothing") {
  auto bert = parse(R"({"type": "BertProcessing", "sep": ["[SEP]", 102], "cls": ["[CLS]", 101]})");
  REQUIRE(bert.ok());
  CHECK(bert.value().apply({5}, 512) == Ids{101, 5, 102});
  auto seq = parse(R"({"type": "Sequence", "processors": [{"type": "ByteLevel", "trim_offsets": false},
      {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0]}]})");
  REQUIRE(seq.ok());
  CHECK(seq.value().apply({5, 6}, 512) == Ids{0, 5, 6, 2});
  auto none = PostProcessor::parse(laya::json::Value(), {"tokenizer.json", "post_processor"});
  REQUIRE(none.ok());
  CHECK(none.value().apply({5, 6}, 1) == Ids{5});
}

TEST_CASE("a template naming a special token it does not define is an invalid checkpoint") {
  auto p = parse(R"({"type": "TemplateProcessing",
      "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
      "special_tokens": {}})");
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().code == laya::ErrorCode::kInvalidCheckpoint);
  CHECK(p.error().message == "tokenizer.json: post_processor.special_tokens has no ids for '[CLS]', which single uses");
}
