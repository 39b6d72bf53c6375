// Token strings by id (see id_to_token.h).
#include "tok/id_to_token.h"

#include <algorithm>
#include <unordered_map>

namespace laya::tok {
namespace {

// Two tokens with one id: Hugging Face keeps whichever its hash map met last; here the later one.
void sort_unique(std::vector<std::pair<int32_t, std::string>>& entries) {
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<int32_t, std::string>> unique;
  unique.reserve(entries.size());
  for (auto& e : entries) {
    if (!unique.empty() && unique.back().first == e.first) {
      unique.back() = std::move(e);
    } else {
      unique.push_back(std::move(e));
    }
  }
  entries = std::move(unique);
}

}  // namespace

Result<IdToToken> IdToToken::build(const json::Value& model_vocab, const FieldPath& at,
                                   const std::vector<AddedToken>& added, const Normalizer& normalizer) {
  if (!model_vocab.is_object()) return invalid_checkpoint(at.name("") + " must be an object of token -> id");
  IdToToken table;
  std::unordered_map<std::string_view, int32_t> last_id;
  last_id.reserve(model_vocab.members().size());
  for (const auto& [token, value] : model_vocab.members()) {
    LAYA_ASSIGN_OR_RETURN(const int32_t id, read_id(value, "[\"" + token + "\"]", at));
    last_id.insert_or_assign(std::string_view(token), id);
  }
  table.model_.reserve(last_id.size());
  for (const auto& [token, value] : model_vocab.members()) {
    const int32_t id = last_id.at(token);
    if (value.as_int64() == id) table.model_.emplace_back(id, token);
  }
  sort_unique(table.model_);

  for (const AddedToken& t : added) {
    if (t.content.empty()) continue;  // Hugging Face skips empty added tokens
    table.added_.emplace_back(t.id, t.normalized ? normalizer.apply(t.content) : t.content);
  }
  sort_unique(table.added_);
  return table;
}

const std::string* IdToToken::find_in(const std::vector<Entry>& entries, int32_t id) {
  const auto it = std::lower_bound(entries.begin(), entries.end(), id,
                                   [](const Entry& e, int32_t value) { return e.first < value; });
  return it != entries.end() && it->first == id ? &it->second : nullptr;
}

const std::string* IdToToken::find(int32_t id) const {
  if (const std::string* s = find_in(added_, id)) return s;
  return find_in(model_, id);
}

}  // namespace laya::tok
