// The character classes behind the GPT-2 split (letter, number, white space, other) against what
// Hugging Face's ByteLevel pre-tokenizer does with every code point (tests/data/tok/
// unicode-classes-hf.txt, probed with the real implementation), and the \w class of single_word.
#include <doctest/doctest.h>

#include <sstream>

#include "tok/unicode_tables.h"
#include "tok_test_files.h"

using namespace laya::tok;

TEST_CASE("letter, number and white space classes match Hugging Face's split for every code point") {
  std::istringstream lines(testing::read_file(testing::data_path("tok/unicode-classes-hf.txt")));
  std::string first, last, kind;
  size_t checked = 0, mismatches = 0;
  char32_t expected_next = 0;
  while (lines >> first >> last >> kind) {
    const auto a = static_cast<char32_t>(std::stoul(first, nullptr, 16));
    const auto b = static_cast<char32_t>(std::stoul(last, nullptr, 16));
    if (expected_next == 0xD800) expected_next = 0xE000;  // surrogates are not probed
    CHECK(a == expected_next);
    expected_next = b + 1;
    for (char32_t c = a; c <= b; ++c) {
      const char got = is_white_space(c) ? 'S' : is_letter(c) ? 'L' : is_number(c) ? 'N' : 'P';
      ++checked;
      if (got != kind[0] && ++mismatches <= 10) FAIL_CHECK("U+" << std::hex << static_cast<uint32_t>(c));
    }
  }
  MESSAGE("checked " << checked << " code points, " << mismatches << " mismatches");
  CHECK(expected_next == 0x110000);
  CHECK(mismatches == 0);
}

TEST_CASE("word characters are letters, marks, decimal digits and connector punctuation") {
  CHECK(is_word_char(U'a'));
  CHECK(is_word_char(U'_'));
  CHECK(is_word_char(U'7'));
  CHECK(is_word_char(U'\u0301'));  // a combining mark counts as a word character
  CHECK(is_word_char(U'\u200D'));  // Join_Control
  CHECK_FALSE(is_word_char(U'-'));
  CHECK_FALSE(is_word_char(U' '));
  CHECK_FALSE(is_word_char(U'\u00BD'));  // ½ is a number but not a decimal digit
}
