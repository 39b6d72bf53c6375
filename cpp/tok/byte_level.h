// Hugging Face's ByteLevel pre-tokenizer (laya-spec §4.3): the GPT-2 split
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// written out by hand (linear time, no regex engine), and the GPT-2 byte-to-unicode map that
// turns every byte into a printable character of the BPE vocabulary.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace laya::tok {

// [begin, end) byte ranges of the GPT-2 pattern's matches, which tile valid UTF-8 `text`.
std::vector<std::pair<size_t, size_t>> gpt2_split(std::string_view text);

// Each byte of `bytes` as its GPT-2 byte-level character (UTF-8).
std::string byte_level_encode(std::string_view bytes);

}  // namespace laya::tok
