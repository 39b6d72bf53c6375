// A JSON document as the engine reads it: objects keep their members in file order (duplicates
// included, so callers decide between Python's "last value wins" and rejecting them), numbers keep
// the text they were written with (Python tells 1 from 1.0), and parsing has depth and size limits
// because checkpoints and requests come from the network.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/status.h"

namespace laya::json {

enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };

const char* kind_name(Kind kind);  // "null", "a boolean", "a number", ... for error messages

class Value;
using Member = std::pair<std::string, Value>;

class Value {
 public:
  Value() = default;  // null
  static Value boolean(bool b);
  static Value number(std::string text);  // text as written, e.g. "1e-05", "-0.0", "NaN"
  static Value string(std::string s);
  static Value array(std::vector<Value> items);
  static Value object(std::vector<Member> members);

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_bool() const { return kind_ == Kind::kBool; }
  bool is_number() const { return kind_ == Kind::kNumber; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_array() const { return kind_ == Kind::kArray; }
  bool is_object() const { return kind_ == Kind::kObject; }

  bool as_bool() const;
  // The number as written. Python's json reads it as an int when it has no '.', 'e' or 'E'.
  const std::string& number_text() const;
  bool is_integer() const;
  double as_double() const;               // correctly rounded; NaN / ±Infinity for those literals
  std::optional<int64_t> as_int64() const;  // only for integers that fit
  const std::string& as_string() const;  // UTF-8
  const std::vector<Value>& items() const;
  const std::vector<Member>& members() const;

  // The value of the last member named `key` (Python's dict semantics), or nullptr.
  const Value* find(std::string_view key) const;
  // Members with duplicates merged as Python's dict does: first position, last value.
  std::vector<Member> python_dict_members() const;

 private:
  Kind kind_ = Kind::kNull;
  bool bool_ = false;
  std::string text_;  // number text or string contents
  std::vector<Value> items_;
  std::vector<Member> members_;
};

struct ParseOptions {
  int max_depth = 256;
  // Python's json module reads NaN, Infinity and -Infinity; configs and headers must not use them.
  bool allow_nonfinite = false;
};

// Parses exactly one JSON value (surrounded by optional whitespace). Errors name the byte offset
// and what was expected there; `what` names the document, e.g. "encoder/config.json".
Result<Value> parse(std::string_view text, std::string_view what, ParseOptions options = {});

// Appends `s` as a JSON string literal. With `ensure_ascii`, non-ASCII is written as \uXXXX escapes
// (surrogate pairs above U+FFFF) as Python's json.dumps does; otherwise it is kept as UTF-8.
void append_quoted(std::string& out, std::string_view s, bool ensure_ascii);

}  // namespace laya::json
