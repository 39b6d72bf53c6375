// Unicode NFC (canonical decomposition, canonical ordering, canonical composition) with the
// Unicode 9.0 data Hugging Face tokenizers' NFC normalizer uses (unicode_tables.h; laya-spec §4.3:
// the English tokenizer declares {"type": "NFC"}).
#pragma once

#include <string>
#include <string_view>

namespace laya::tok {

// NFC of valid UTF-8 text. Text below U+0300 is returned unchanged without decoding.
std::string nfc(std::string_view text);

std::u32string nfc(std::u32string_view text);

}  // namespace laya::tok
