// UTF-8 decoding and encoding for the tokenizer. Text reaching the tokenizer should be valid UTF-8
// (Hugging Face tokenizers only takes Rust strings); invalid bytes are REPLACED by U+FFFD, one per
// maximal invalid subpart as WHATWG's TextDecoder does, so encode() never fails. Callers that must
// reject such text call utf8_error() first.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace laya::tok {

inline constexpr char32_t kReplacementChar = 0xFFFD;

// Decodes one code point at `pos` and advances `pos`; an invalid sequence yields U+FFFD and
// advances past its maximal subpart (at least one byte).
char32_t decode_utf8(std::string_view text, size_t& pos);

// All code points of `text` (invalid sequences replaced).
std::u32string decode_utf8(std::string_view text);

void append_utf8(std::string& out, char32_t c);
std::string encode_utf8(std::u32string_view text);

// `text` with every invalid sequence replaced by U+FFFD (a copy of `text` when it is valid).
std::string sanitize_utf8(std::string_view text);

// An error naming `what` and the byte offset of the first invalid sequence, or OK.
Status utf8_error(std::string_view text, std::string_view what);

}  // namespace laya::tok
