// WordLevel: Hugging Face fails an encode when a word is unknown and unk_token is not in the
// vocabulary; we check the unk token at load instead, so encoding cannot fail.
#include "tok/word_level.h"

namespace laya::tok {

Result<WordLevel> WordLevel::parse(const json::Value& model, const FieldPath& at) {
  WordLevel w;
  const json::Value* vocab = model.find("vocab");
  if (!vocab) return at.invalid("vocab", "is missing");
  LAYA_ASSIGN_OR_RETURN(w.vocab_, Vocab::parse(*vocab, at.child("vocab")));
  LAYA_ASSIGN_OR_RETURN(const std::string unk, read_string(model, "unk_token", at));
  const std::optional<int32_t> unk_id = w.vocab_.find(unk);
  if (!unk_id) return at.invalid("unk_token", "'" + unk + "' is not in the vocabulary");
  w.unk_id_ = *unk_id;
  return w;
}

void WordLevel::tokenize(std::string_view word, std::vector<int32_t>& ids) const {
  ids.push_back(vocab_.find(word).value_or(unk_id_));
}

}  // namespace laya::tok
