// Vocabulary parsing (see vocab.h).
#include "tok/vocab.h"

#include <algorithm>

namespace laya::tok {

Result<Vocab> Vocab::parse(const json::Value& vocab, const FieldPath& at) {
  if (!vocab.is_object()) return invalid_checkpoint(at.name("") + " must be an object of token -> id");
  Vocab v;
  v.ids_.reserve(vocab.members().size());
  for (const auto& [token, value] : vocab.members()) {
    LAYA_ASSIGN_OR_RETURN(const int32_t id, read_id(value, "[\"" + token + "\"]", at));
    v.ids_.insert_or_assign(token, id);
    v.max_id_ = std::max(v.max_id_, id);
  }
  return v;
}

}  // namespace laya::tok
