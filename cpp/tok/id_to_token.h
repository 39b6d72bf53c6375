// Token strings by id, as Hugging Face tokenizers' decode looks them up: an added token first (its
// content, or its normalized form when the token is `normalized`, since tokenizers 0.23), then the
// model vocabulary. Ids in neither have no string and are left out of the decoded text.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tok/added_tokens.h"
#include "tok/json_fields.h"
#include "tok/normalizer.h"
#include "util/json.h"
#include "util/status.h"

namespace laya::tok {

class IdToToken {
 public:
  IdToToken() = default;
  // `model_vocab` is tokenizer.json's "model.vocab" (token -> id; a token written twice keeps its
  // last id, so the earlier id has no string).
  static Result<IdToToken> build(const json::Value& model_vocab, const FieldPath& at,
                                 const std::vector<AddedToken>& added, const Normalizer& normalizer);

  // The token's string, or nullptr.
  const std::string* find(int32_t id) const;

 private:
  using Entry = std::pair<int32_t, std::string>;  // sorted by id
  static const std::string* find_in(const std::vector<Entry>& entries, int32_t id);

  std::vector<Entry> added_;
  std::vector<Entry> model_;
};

}  // namespace laya::tok
