// UTF-8 with WHATWG-style replacement of invalid sequences (see utf8.h).
#include "tok/utf8.h"

#include <cstdint>

namespace laya::tok {

char32_t decode_utf8(std::string_view text, size_t& pos) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  const uint8_t b0 = byte(pos);
  if (b0 < 0x80) {
    ++pos;
    return b0;
  }
  size_t need;
  char32_t c;
  uint8_t lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1, c = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2, c = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;  // overlong
    if (b0 == 0xED) hi = 0x9F;  // surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3, c = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;  // overlong
    if (b0 == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    ++pos;
    return kReplacementChar;
  }
  size_t i = pos + 1;
  for (size_t k = 0; k < need; ++k, ++i) {
    const uint8_t lower = k == 0 ? lo : 0x80, upper = k == 0 ? hi : 0xBF;
    if (i >= text.size() || byte(i) < lower || byte(i) > upper) {
      pos = i;  // the maximal subpart ends before the offending byte
      return kReplacementChar;
    }
    c = (c << 6) | (byte(i) & 0x3F);
  }
  pos = i;
  return c;
}

std::u32string decode_utf8(std::string_view text) {
  std::u32string out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) out.push_back(decode_utf8(text, pos));
  return out;
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

std::string encode_utf8(std::u32string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char32_t c : text) append_utf8(out, c);
  return out;
}

namespace {
// Byte offset of the first invalid sequence, or npos.
size_t first_invalid(std::string_view text) {
  for (size_t pos = 0; pos < text.size();) {
    const size_t start = pos;
    const bool ascii = static_cast<uint8_t>(text[pos]) < 0x80;
    if (decode_utf8(text, pos) == kReplacementChar && !ascii) {
      // U+FFFD itself is valid (EF BF BD): only a short sequence means replacement.
      if (pos - start != 3 || text.substr(start, 3) != "\xEF\xBF\xBD") return start;
    }
  }
  return std::string_view::npos;
}
}  // namespace

std::string sanitize_utf8(std::string_view text) {
  if (first_invalid(text) == std::string_view::npos) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  for (size_t pos = 0; pos < text.size();) append_utf8(out, decode_utf8(text, pos));
  return out;
}

Status utf8_error(std::string_view text, std::string_view what) {
  const size_t at = first_invalid(text);
  if (at == std::string_view::npos) return {};
  return invalid_request(std::string(what) + " is not valid UTF-8 (invalid byte sequence at byte " +
                         std::to_string(at) + ")");
}

}  // namespace laya::tok
