// A recursive-descent JSON parser (RFC 8259, plus Python's NaN / Infinity when asked) that keeps
// member order and number spelling. Depth is bounded so hostile input cannot exhaust the stack.
#include "util/json.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace laya::json {

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::kNull: return "null";
    case Kind::kBool: return "a boolean";
    case Kind::kNumber: return "a number";
    case Kind::kString: return "a string";
    case Kind::kArray: return "an array";
    case Kind::kObject: return "an object";
  }
  return "a value";
}

Value Value::boolean(bool b) {
  Value v;
  v.kind_ = Kind::kBool;
  v.bool_ = b;
  return v;
}
Value Value::number(std::string text) {
  Value v;
  v.kind_ = Kind::kNumber;
  v.text_ = std::move(text);
  return v;
}
Value Value::string(std::string s) {
  Value v;
  v.kind_ = Kind::kString;
  v.text_ = std::move(s);
  return v;
}
Value Value::array(std::vector<Value> items) {
  Value v;
  v.kind_ = Kind::kArray;
  v.items_ = std::move(items);
  return v;
}
Value Value::object(std::vector<Member> members) {
  Value v;
  v.kind_ = Kind::kObject;
  v.members_ = std::move(members);
  return v;
}

bool Value::as_bool() const { assert(is_bool()); return bool_; }
const std::string& Value::number_text() const { assert(is_number()); return text_; }
const std::string& Value::as_string() const { assert(is_string()); return text_; }
const std::vector<Value>& Value::items() const { assert(is_array()); return items_; }
const std::vector<Member>& Value::members() const { assert(is_object()); return members_; }

bool Value::is_integer() const {
  return is_number() && text_.find_first_of(".eEIN") == std::string::npos;
}

double Value::as_double() const {
  assert(is_number());
  if (text_ == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text_ == "Infinity") return std::numeric_limits<double>::infinity();
  if (text_ == "-Infinity") return -std::numeric_limits<double>::infinity();
  return std::strtod(text_.c_str(), nullptr);
}

std::optional<int64_t> Value::as_int64() const {
  if (!is_integer()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(text_.c_str(), &end, 10);
  if (errno == ERANGE || end != text_.c_str() + text_.size()) return std::nullopt;
  return static_cast<int64_t>(v);
}

const Value* Value::find(std::string_view key) const {
  if (!is_object()) return nullptr;
  for (auto it = members_.rbegin(); it != members_.rend(); ++it) {
    if (it->first == key) return &it->second;
  }
  return nullptr;
}

std::vector<Member> Value::python_dict_members() const {
  std::vector<Member> merged;
  for (const Member& m : members()) {
    bool replaced = false;
    for (Member& seen : merged) {
      if (seen.first == m.first) {
        seen.second = m.second;
        replaced = true;
        break;
      }
    }
    if (!replaced) merged.push_back(m);
  }
  return merged;
}

namespace {

class Parser {
 public:
  Parser(std::string_view text, std::string_view what, ParseOptions options)
      : s_(text), what_(what), options_(options) {}

  Result<Value> parse_document() {
    skip_space();
    Value v;
    if (!parse_value(v, 0)) return failure();
    skip_space();
    if (pos_ != s_.size()) {
      fail("unexpected text after the JSON value");
      return failure();
    }
    return v;
  }

 private:
  Error failure() const {
    return invalid_request(std::string(what_) + ": invalid JSON at byte " + std::to_string(err_pos_) +
                           ": " + err_);
  }

  bool fail(std::string message) {
    if (err_.empty()) {
      err_ = std::move(message);
      err_pos_ = pos_;
    }
    return false;
  }

  void skip_space() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool consume(std::string_view word) {
    if (s_.substr(pos_, word.size()) == word) {
      pos_ += word.size();
      return true;
    }
    return false;
  }

  bool parse_value(Value& out, int depth) {
    if (depth > options_.max_depth) {
      return fail("nested deeper than " + std::to_string(options_.max_depth) + " levels");
    }
    if (pos_ >= s_.size()) return fail("unexpected end of input");
    char c = s_[pos_];
    switch (c) {
      case '{': return parse_object(out, depth);
      case '[': return parse_array(out, depth);
      case '"': {
        std::string str;
        if (!parse_string(str)) return false;
        out = Value::string(std::move(str));
        return true;
      }
      case 't':
        if (consume("true")) { out = Value::boolean(true); return true; }
        break;
      case 'f':
        if (consume("false")) { out = Value::boolean(false); return true; }
        break;
      case 'n':
        if (consume("null")) { out = Value(); return true; }
        break;
      case 'N':
        if (options_.allow_nonfinite && consume("NaN")) { out = Value::number("NaN"); return true; }
        break;
      case 'I':
        if (options_.allow_nonfinite && consume("Infinity")) {
          out = Value::number("Infinity");
          return true;
        }
        break;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return parse_number(out);
    }
    return fail("expected a JSON value");
  }

  bool parse_number(Value& out) {
    size_t start = pos_;
    if (s_[pos_] == '-') {
      ++pos_;
      if (options_.allow_nonfinite && consume("Infinity")) {
        out = Value::number("-Infinity");
        return true;
      }
    }
    auto digits = [&] {
      size_t from = pos_;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
      return pos_ - from;
    };
    if (pos_ < s_.size() && s_[pos_] == '0') {
      ++pos_;
    } else if (digits() == 0) {
      return fail("expected a digit");
    }
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      if (digits() == 0) return fail("expected a digit after '.'");
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (digits() == 0) return fail("expected a digit in the exponent");
    }
    out = Value::number(std::string(s_.substr(start, pos_ - start)));
    return true;
  }

  bool parse_hex4(uint32_t& out) {
    if (s_.size() - pos_ < 4) return fail("truncated \\u escape");
    out = 0;
    for (int i = 0; i < 4; ++i) {
      char c = s_[pos_++];
      out <<= 4;
      if (c >= '0' && c <= '9') out |= c - '0';
      else if (c >= 'a' && c <= 'f') out |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') out |= c - 'A' + 10;
      else return fail("bad hex digit in \\u escape");
    }
    return true;
  }

  static void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  // Copies one UTF-8 encoded character, rejecting malformed, overlong and surrogate encodings.
  bool copy_utf8_char(std::string& out) {
    auto byte = [&](size_t i) { return static_cast<unsigned char>(s_[pos_ + i]); };
    unsigned char b0 = byte(0);
    size_t n = b0 < 0x80 ? 1 : (b0 >> 5) == 0x6 ? 2 : (b0 >> 4) == 0xE ? 3 : (b0 >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || s_.size() - pos_ < n) return fail("invalid UTF-8");
    uint32_t cp = n == 1 ? b0 : n == 2 ? (b0 & 0x1F) : n == 3 ? (b0 & 0x0F) : (b0 & 0x07);
    for (size_t i = 1; i < n; ++i) {
      if ((byte(i) & 0xC0) != 0x80) return fail("invalid UTF-8");
      cp = (cp << 6) | (byte(i) & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return fail("invalid UTF-8");
    }
    out.append(s_.substr(pos_, n));
    pos_ += n;
    return true;
  }

  bool parse_string(std::string& out) {
    ++pos_;  // opening quote
    while (true) {
      if (pos_ >= s_.size()) return fail("unterminated string");
      unsigned char c = static_cast<unsigned char>(s_[pos_]);
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20) return fail("control character in string");
      if (c != '\\') {
        if (!copy_utf8_char(out)) return false;
        continue;
      }
      ++pos_;
      if (pos_ >= s_.size()) return fail("unterminated escape");
      char e = s_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          uint32_t cp;
          if (!parse_hex4(cp)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t low;
            if (!consume("\\u") || !parse_hex4(low) || low < 0xDC00 || low > 0xDFFF) {
              return fail("unpaired UTF-16 surrogate in \\u escape");
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return fail("unpaired UTF-16 surrogate in \\u escape");
          }
          append_utf8(out, cp);
          break;
        }
        default:
          --pos_;
          return fail("invalid escape");
      }
    }
  }

  bool parse_array(Value& out, int depth) {
    ++pos_;
    std::vector<Value> items;
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == ']') {
      ++pos_;
      out = Value::array(std::move(items));
      return true;
    }
    while (true) {
      skip_space();
      Value item;
      if (!parse_value(item, depth + 1)) return false;
      items.push_back(std::move(item));
      skip_space();
      if (pos_ >= s_.size()) return fail("unterminated array");
      if (s_[pos_] == ',') { ++pos_; continue; }
      if (s_[pos_] == ']') { ++pos_; break; }
      return fail("expected ',' or ']'");
    }
    out = Value::array(std::move(items));
    return true;
  }

  bool parse_object(Value& out, int depth) {
    ++pos_;
    std::vector<Member> members;
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      ++pos_;
      out = Value::object(std::move(members));
      return true;
    }
    while (true) {
      skip_space();
      if (pos_ >= s_.size() || s_[pos_] != '"') return fail("expected a string key");
      std::string key;
      if (!parse_string(key)) return false;
      skip_space();
      if (pos_ >= s_.size() || s_[pos_] != ':') return fail("expected ':'");
      ++pos_;
      skip_space();
      Value value;
      if (!parse_value(value, depth + 1)) return false;
      members.emplace_back(std::move(key), std::move(value));
      skip_space();
      if (pos_ >= s_.size()) return fail("unterminated object");
      if (s_[pos_] == ',') { ++pos_; continue; }
      if (s_[pos_] == '}') { ++pos_; break; }
      return fail("expected ',' or '}'");
    }
    out = Value::object(std::move(members));
    return true;
  }

  std::string_view s_;
  std::string_view what_;
  ParseOptions options_;
  size_t pos_ = 0;
  std::string err_;
  size_t err_pos_ = 0;
};

}  // namespace

Result<Value> parse(std::string_view text, std::string_view what, ParseOptions options) {
  return Parser(text, what, options).parse_document();
}

void append_quoted(std::string& out, std::string_view s, bool ensure_ascii) {
  static constexpr char kHex[] = "0123456789abcdef";
  auto append_u = [&](uint32_t unit) {
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(unit >> shift) & 0xF];
  };
  out += '"';
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
          // Python escapes C0 controls always, and DEL too when ensure_ascii (anything outside ' '..'~').
          if (c < 0x20 || (c == 0x7f && ensure_ascii)) append_u(c);
          else out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    size_t n = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : 4;
    if (i + n > s.size()) n = s.size() - i;  // callers pass valid UTF-8; never read past the end
    if (!ensure_ascii) {
      out.append(s.substr(i, n));
    } else {
      uint32_t cp = n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
      for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
      if (cp >= 0x10000) {
        cp -= 0x10000;
        append_u(0xD800 + (cp >> 10));
        append_u(0xDC00 + (cp & 0x3FF));
      } else {
        append_u(cp);
      }
    }
    i += n;
  }
  out += '"';
}

}  // namespace laya::json
