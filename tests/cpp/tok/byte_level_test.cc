// The GPT-2 split and byte map; expected pieces are what Hugging Face's ByteLevel pre-tokenizer
// returns for the same strings (tokenizers 0.23.2).
#include "tok/byte_level.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using laya::tok::byte_level_encode;
using laya::tok::gpt2_split;
using Strings = std::vector<std::string>;

namespace {

Strings pieces(const std::string& text) {
  Strings out;
  for (const auto& [begin, end] : gpt2_split(text)) out.push_back(byte_level_encode(text.substr(begin, end - begin)));
  return out;
}

}  // namespace

TEST_CASE("the GPT-2 split keeps one leading space with letters, numbers and punctuation") {
  CHECK(pieces("Hello world") == Strings{"Hello", "\xC4\xA0world"});
  CHECK(pieces("I'LL 123abc!!  ") == Strings{"I", "'", "LL", "\xC4\xA0" "123", "abc", "!!", "\xC4\xA0\xC4\xA0"});
  CHECK(pieces(" 'sup") == Strings{"\xC4\xA0'", "sup"});
}

TEST_CASE("a space run leaves its last space to the following word") {
  CHECK(pieces("it's  a   test") ==
        Strings{"it", "'s", "\xC4\xA0", "\xC4\xA0" "a", "\xC4\xA0\xC4\xA0", "\xC4\xA0test"});
  CHECK(pieces("x  ") == Strings{"x", "\xC4\xA0\xC4\xA0"});
  CHECK(pieces("a\tb") == Strings{"a", "\xC4\x89", "b"});  // a lone tab is its own piece
}

TEST_CASE("the byte map sends printable bytes to themselves and the rest above U+0100") {
  CHECK(byte_level_encode("A~") == "A~");
  CHECK(byte_level_encode(" ") == "\xC4\xA0");         // U+0120 Ġ
  CHECK(byte_level_encode("\n") == "\xC4\x8A");        // U+010A Ċ
  CHECK(byte_level_encode("\xC3\xA9") == "\xC3\x83\xC2\xA9");  // é's bytes C3 A9 -> Ã ©
  CHECK(byte_level_encode(std::string(1, '\0')) == "\xC4\x80");  // U+0100
}
