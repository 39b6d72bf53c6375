// The WordLevel model (tokenizer.json "model": {"type": "WordLevel"}): a word is its vocabulary id
// or the unk token's id. Used by the reference fixtures' synthetic tokenizers.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tok/vocab.h"

namespace laya::tok {

class WordLevel {
 public:
  static Result<WordLevel> parse(const json::Value& model, const FieldPath& at);

  void tokenize(std::string_view word, std::vector<int32_t>& ids) const;
  const Vocab& vocab() const { return vocab_; }

 private:
  Vocab vocab_;
  int32_t unk_id_ = 0;
};

}  // namespace laya::tok
