// Field reads with messages naming the file and field (see json_fields.h).
#include "tok/json_fields.h"

#include <limits>

namespace laya::tok {

std::string FieldPath::name(std::string_view key) const {
  std::string out(file);
  out += ": ";
  out += object;
  if (!object.empty() && !key.empty() && key.front() != '[') out += '.';
  out += key;
  return out;
}

Error FieldPath::invalid(std::string_view key, std::string_view problem) const {
  return invalid_checkpoint(name(key) + " " + std::string(problem));
}

Error FieldPath::unsupported(std::string_view key, std::string_view problem) const {
  return unsupported_model(name(key) + " " + std::string(problem));
}

FieldPath FieldPath::child(std::string_view key) const {
  std::string path = object;
  if (!path.empty()) path += '.';
  path += key;
  return {file, std::move(path)};
}

FieldPath FieldPath::index(size_t i) const {
  return {file, object + "[" + std::to_string(i) + "]"};
}

Result<bool> read_bool(const json::Value& object, std::string_view key, bool fallback, const FieldPath& at) {
  const json::Value* v = object.find(key);
  if (!v || v->is_null()) return fallback;
  if (!v->is_bool()) return at.invalid(key, std::string("must be a boolean, not ") + json::kind_name(v->kind()));
  return v->as_bool();
}

Result<std::string> read_string(const json::Value& object, std::string_view key, const FieldPath& at) {
  const json::Value* v = object.find(key);
  if (!v) return at.invalid(key, "is missing");
  if (!v->is_string()) return at.invalid(key, std::string("must be a string, not ") + json::kind_name(v->kind()));
  return v->as_string();
}

Result<std::optional<std::string>> read_optional_string(const json::Value& object, std::string_view key,
                                                        const FieldPath& at) {
  const json::Value* v = object.find(key);
  if (!v || v->is_null()) return std::optional<std::string>();
  if (!v->is_string()) {
    return at.invalid(key, std::string("must be a string or null, not ") + json::kind_name(v->kind()));
  }
  return std::optional<std::string>(v->as_string());
}

Result<int32_t> read_id(const json::Value& value, std::string_view key, const FieldPath& at) {
  const std::optional<int64_t> id = value.is_number() ? value.as_int64() : std::nullopt;
  if (!id || *id < 0 || *id > std::numeric_limits<int32_t>::max()) {
    return at.invalid(key, "must be a token id (an integer from 0 to 2^31 - 1)");
  }
  return static_cast<int32_t>(*id);
}

Result<std::string> read_type(const json::Value& object, const FieldPath& at) {
  if (!object.is_object()) {
    return invalid_checkpoint(at.name("") + " must be an object or null, not " + json::kind_name(object.kind()));
  }
  const json::Value* v = object.find("type");
  if (!v) return std::string();
  if (!v->is_string()) return at.invalid("type", "must be a string");
  return v->as_string();
}

}  // namespace laya::tok
