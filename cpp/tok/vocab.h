// A model vocabulary (tokenizer.json "model.vocab"): token string -> id, with lookups by
// string_view. Duplicate keys keep the last value, as serde's map does in Hugging Face tokenizers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "tok/json_fields.h"
#include "util/json.h"
#include "util/status.h"

namespace laya::tok {

class Vocab {
 public:
  static Result<Vocab> parse(const json::Value& vocab, const FieldPath& at);

  std::optional<int32_t> find(std::string_view token) const {
    const auto it = ids_.find(token);
    return it == ids_.end() ? std::nullopt : std::optional<int32_t>(it->second);
  }
  size_t size() const { return ids_.size(); }  // entries (Hugging Face's model vocab size)
  int32_t max_id() const { return max_id_; }   // -1 when empty

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::unordered_map<std::string, int32_t, Hash, std::equal_to<>> ids_;
  int32_t max_id_ = -1;
};

}  // namespace laya::tok
