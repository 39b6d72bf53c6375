// Hugging Face's decoders, step for step as tokenizers' decode_chain runs them (see decoder.h).
#include "tok/decoder.h"

#include <array>
#include <unordered_map>

#include "tok/byte_level.h"
#include "tok/utf8.h"

namespace laya::tok {
namespace {

constexpr int kMaxSequenceDepth = 16;
const std::string kReplacementUtf8 = "\xEF\xBF\xBD";  // U+FFFD

// The inverse of the GPT-2 byte-to-unicode map: each of the 256 characters back to its byte.
const std::unordered_map<char32_t, uint8_t>& byte_level_chars() {
  static const auto* map = [] {
    auto* m = new std::unordered_map<char32_t, uint8_t>();
    for (int b = 0; b < 256; ++b) {
      const std::u32string c = decode_utf8(byte_level_encode(std::string(1, static_cast<char>(b))));
      m->emplace(c.at(0), static_cast<uint8_t>(b));
    }
    return m;
  }();
  return *map;
}

// One character, as the decoders' `char` fields are.
Result<std::string> read_char(const json::Value& spec, std::string_view key, const FieldPath& at) {
  LAYA_ASSIGN_OR_RETURN(std::string c, read_string(spec, key, at));
  size_t pos = 0;
  if (c.empty() || (decode_utf8(c, pos), pos != c.size())) return at.invalid(key, "must be exactly one character");
  return c;
}

Result<size_t> read_count(const json::Value& spec, std::string_view key, const FieldPath& at) {
  const json::Value* v = spec.find(key);
  const std::optional<int64_t> n = v && v->is_number() ? v->as_int64() : std::nullopt;
  if (!n || *n < 0) return at.invalid(key, "must be a non-negative integer");
  return static_cast<size_t>(*n);
}

// Metaspace drops the replacement from the first token unless prepend_scheme is "never"; files
// older than prepend_scheme say add_prefix_space (false: never).
Result<bool> read_metaspace_prepends(const json::Value& spec, const FieldPath& at) {
  LAYA_ASSIGN_OR_RETURN(const std::optional<std::string> scheme, read_optional_string(spec, "prepend_scheme", at));
  if (!scheme) return read_bool(spec, "add_prefix_space", true, at);
  if (*scheme != "always" && *scheme != "first" && *scheme != "never") {
    return at.invalid("prepend_scheme", "must be \"always\", \"first\" or \"never\", not \"" + *scheme + "\"");
  }
  return *scheme != "never";
}

// ByteFallback's "<0xNN>": exactly six bytes, NN read by Rust's u8::from_str_radix(_, 16), which
// also takes a leading '+'.
std::optional<uint8_t> fallback_byte(const std::string& token) {
  if (token.size() != 6 || token.compare(0, 3, "<0x") != 0 || token[5] != '>') return std::nullopt;
  const auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  const int lo = hex(token[4]);
  if (lo < 0) return std::nullopt;
  if (token[3] == '+') return static_cast<uint8_t>(lo);
  const int hi = hex(token[3]);
  if (hi < 0) return std::nullopt;
  return static_cast<uint8_t>(hi * 16 + lo);
}

bool is_valid_utf8(std::string_view bytes) { return sanitize_utf8(bytes) == bytes; }

}  // namespace

Result<Decoder> Decoder::parse(const json::Value& spec, const FieldPath& at) {
  Decoder d;
  if (spec.is_null()) return d;
  d.present_ = true;
  LAYA_RETURN_IF_ERROR(parse_into(spec, at, 0, d.steps_));
  return d;
}

Status Decoder::parse_into(const json::Value& spec, const FieldPath& at, int depth, std::vector<Step>& steps) {
  LAYA_ASSIGN_OR_RETURN(const std::string type, read_type(spec, at));
  if (type == "Sequence") {
    if (depth >= kMaxSequenceDepth) return at.unsupported("", "nests Sequences too deeply");
    const json::Value* list = spec.find("decoders");
    if (!list || !list->is_array()) return at.invalid("decoders", "must be an array");
    const FieldPath list_at = at.child("decoders");
    for (size_t i = 0; i < list->items().size(); ++i) {
      LAYA_RETURN_IF_ERROR(parse_into(list->items()[i], list_at.index(i), depth + 1, steps));
    }
    return {};
  }
  Step step{};
  if (type == "ByteLevel") {
    step.kind = Kind::kByteLevel;
  } else if (type == "Metaspace") {
    step.kind = Kind::kMetaspace;
    LAYA_ASSIGN_OR_RETURN(step.pattern, read_char(spec, "replacement", at));
    LAYA_ASSIGN_OR_RETURN(step.drop_first_token_replacement, read_metaspace_prepends(spec, at));
  } else if (type == "Replace") {
    step.kind = Kind::kReplace;
    const json::Value* pattern = spec.find("pattern");
    if (!pattern || !pattern->is_object()) return at.invalid("pattern", "must be an object");
    if (!pattern->find("String")) {
      return at.child("pattern").unsupported("", "is not supported: only a String pattern (a literal) is");
    }
    LAYA_ASSIGN_OR_RETURN(step.pattern, read_string(*pattern, "String", at.child("pattern")));
    if (step.pattern.empty()) return at.child("pattern").unsupported("String", "is empty");
    LAYA_ASSIGN_OR_RETURN(step.content, read_string(spec, "content", at));
  } else if (type == "ByteFallback") {
    step.kind = Kind::kByteFallback;
  } else if (type == "Fuse") {
    step.kind = Kind::kFuse;
  } else if (type == "Strip") {
    step.kind = Kind::kStrip;
    LAYA_ASSIGN_OR_RETURN(step.pattern, read_char(spec, "content", at));
    LAYA_ASSIGN_OR_RETURN(step.strip_start, read_count(spec, "start", at));
    LAYA_ASSIGN_OR_RETURN(step.strip_stop, read_count(spec, "stop", at));
  } else {
    return at.unsupported("type", "'" + type +
                                      "' is not supported (supported: ByteLevel, Metaspace, Replace, ByteFallback, "
                                      "Fuse, Strip, Sequence)");
  }
  steps.push_back(std::move(step));
  return {};
}

void Decoder::apply(const Step& step, std::vector<std::string>& tokens) {
  switch (step.kind) {
    case Kind::kByteLevel: {
      // A token whose characters are all in the byte map gives those bytes; any other (an added
      // token such as a run of spaces) gives its own UTF-8. The bytes of all tokens are then read
      // as UTF-8 once, lossily (Rust's from_utf8_lossy: one U+FFFD per maximal invalid subpart).
      const auto& chars = byte_level_chars();
      std::string bytes;
      for (const std::string& token : tokens) {
        std::string mapped;
        bool all_mapped = true;
        for (const char32_t c : decode_utf8(token)) {
          const auto it = chars.find(c);
          if (it == chars.end()) {
            all_mapped = false;
            break;
          }
          mapped.push_back(static_cast<char>(it->second));
        }
        bytes += all_mapped ? mapped : token;
      }
      tokens.assign(1, sanitize_utf8(bytes));
      return;
    }
    case Kind::kMetaspace:
      for (size_t i = 0; i < tokens.size(); ++i) {
        const std::string with = (i == 0 && step.drop_first_token_replacement) ? "" : " ";
        std::string out;
        size_t begin = 0;
        for (size_t at = tokens[i].find(step.pattern); at != std::string::npos;
             at = tokens[i].find(step.pattern, begin)) {
          out.append(tokens[i], begin, at - begin);
          out += with;
          begin = at + step.pattern.size();
        }
        out.append(tokens[i], begin);
        tokens[i] = std::move(out);
      }
      return;
    case Kind::kReplace:
      for (std::string& token : tokens) {
        std::string out;
        size_t begin = 0;
        for (size_t at = token.find(step.pattern); at != std::string::npos; at = token.find(step.pattern, begin)) {
          out.append(token, begin, at - begin);
          out += step.content;
          begin = at + step.pattern.size();
        }
        out.append(token, begin);
        token = std::move(out);
      }
      return;
    case Kind::kByteFallback: {
      // A run of byte tokens becomes its text when the run is valid UTF-8, else one U+FFFD per
      // byte (not per invalid sequence, unlike ByteLevel).
      std::vector<std::string> out;
      std::string run;
      const auto flush = [&] {
        if (run.empty()) return;
        if (is_valid_utf8(run)) {
          out.push_back(run);
        } else {
          for (size_t i = 0; i < run.size(); ++i) out.push_back(kReplacementUtf8);
        }
        run.clear();
      };
      for (std::string& token : tokens) {
        if (const std::optional<uint8_t> b = fallback_byte(token)) {
          run.push_back(static_cast<char>(*b));
          continue;
        }
        flush();
        out.push_back(std::move(token));
      }
      flush();
      tokens = std::move(out);
      return;
    }
    case Kind::kFuse: {
      std::string all;
      for (const std::string& token : tokens) all += token;
      tokens.assign(1, std::move(all));
      return;
    }
    case Kind::kStrip: {
      // Hugging Face panics where the two cuts cross (a token made only of the character, with
      // both start and stop set); here that token becomes empty.
      const std::u32string c = decode_utf8(step.pattern);
      for (std::string& token : tokens) {
        const std::u32string chars = decode_utf8(token);
        size_t start = 0;
        while (start < step.strip_start && start < chars.size() && chars[start] == c[0]) ++start;
        size_t stop = chars.size();
        for (size_t i = 0; i < step.strip_stop && stop > start && chars[stop - 1] == c[0]; ++i) --stop;
        token = encode_utf8(std::u32string_view(chars).substr(start, stop - start));
      }
      return;
    }
  }
}

std::string Decoder::decode(std::vector<std::string> tokens) const {
  if (!present_) {
    std::string joined;
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (i > 0) joined += ' ';
      joined += tokens[i];
    }
    return joined;
  }
  for (const Step& step : steps_) apply(step, tokens);
  std::string text;
  for (const std::string& token : tokens) text += token;
  return text;
}

}  // namespace laya::tok
