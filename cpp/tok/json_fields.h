// Typed reads of tokenizer.json / tokenizer_config.json fields whose errors name the file and the
// field path, e.g. "tokenizer.json: model.unk_token must be a string or null".
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "util/json.h"
#include "util/status.h"

namespace laya::tok {

// Where a field lives: the file and the path of the object holding it ("model", "added_tokens[3]").
struct FieldPath {
  std::string_view file;
  std::string object;

  std::string name(std::string_view key) const;  // "tokenizer.json: model.unk_token"
  Error invalid(std::string_view key, std::string_view problem) const;      // invalid_checkpoint
  Error unsupported(std::string_view key, std::string_view problem) const;  // unsupported_model
  FieldPath child(std::string_view key) const;
  FieldPath index(size_t i) const;
};

Result<bool> read_bool(const json::Value& object, std::string_view key, bool fallback, const FieldPath& at);
Result<std::string> read_string(const json::Value& object, std::string_view key, const FieldPath& at);
// Missing or null reads as nullopt.
Result<std::optional<std::string>> read_optional_string(const json::Value& object, std::string_view key,
                                                        const FieldPath& at);
// A token id: an integer in [0, 2^31).
Result<int32_t> read_id(const json::Value& value, std::string_view key, const FieldPath& at);

// The object's "type" member ("" when missing).
Result<std::string> read_type(const json::Value& object, const FieldPath& at);

}  // namespace laya::tok
